import Metrics

/// What a thumbnail server records through swift-metrics (the process's
/// backend decides where it goes; `thumbnailer serve` exports Prometheus):
/// hits per tier, renders, response times by outcome, renders in flight,
/// the queue's length, and requests refused as overload.
struct ServerMetrics: Sendable {
    let rendersInFlight = Gauge(label: "thumbnailer_renders_in_flight")
    let queueLength = Gauge(label: "thumbnailer_queue_length")
    let overloaded = Counter(label: "thumbnailer_overloaded_total")
    /// Renders made, however many requests shared each.
    let renders = Counter(label: "thumbnailer_renders_total")

    /// Counts a request answered by `tier` (a hit, unless a render answered:
    /// its own or one it shared), and how long it took.
    func answered(by tier: ServedTier, in duration: Duration) {
        if tier != .render {
            Counter(label: "thumbnailer_hits_total", dimensions: [("tier", tier.rawValue)]).increment()
        }
        let (seconds, attoseconds) = duration.components
        Timer(label: "thumbnailer_response_seconds", dimensions: [("outcome", tier.rawValue)])
            .recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
