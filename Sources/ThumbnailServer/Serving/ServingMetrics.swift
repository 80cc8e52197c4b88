import Metrics

/// What a thumbnail server records through swift-metrics (the process's
/// backend decides where it goes; `thumbnailer serve` exports Prometheus):
/// hits per tier, renders, response times by outcome, renders in flight,
/// the queue's length, and requests refused as overload. Every metric is made
/// once, when the server is: bootstrap the metrics system before that.
struct ServingMetrics: Sendable {
    let rendersInFlight = Gauge(label: "thumbnailer_renders_in_flight")
    let queueLength = Gauge(label: "thumbnailer_queue_length")
    let overloaded = Counter(label: "thumbnailer_overloaded_total")
    /// Renders made, however many requests shared each.
    let renders = Counter(label: "thumbnailer_renders_total")
    private let hits: [ServedTier: Counter]
    private let responseTimes: [ServedTier: Timer]

    init() {
        let tiers: [ServedTier] = [.memory, .disk, .store, .render]
        hits = Dictionary(uniqueKeysWithValues: tiers.filter { $0 != .render }.map { tier in
            (tier, Counter(label: "thumbnailer_hits_total", dimensions: [("tier", tier.rawValue)]))
        })
        responseTimes = Dictionary(uniqueKeysWithValues: tiers.map { tier in
            (tier, Timer(label: "thumbnailer_response_seconds", dimensions: [("outcome", tier.rawValue)]))
        })
    }

    /// Counts a request answered by `tier` (a hit, unless a render answered:
    /// its own or one it shared), and how long it took.
    func answered(by tier: ServedTier, in duration: Duration) {
        hits[tier]?.increment()
        let (seconds, attoseconds) = duration.components
        responseTimes[tier]?.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
