import Metrics
import Synchronization

/// A value read when `/metrics` is scraped rather than recorded as it changes: a
/// process's peak memory, a running total a pipeline keeps anyway. It is recorded
/// through swift-metrics, so make it after `MetricsSystem.bootstrap` (a metric
/// made before goes to the no-op backend), and hand it to ``OperationsRoutes``.
public struct ScrapedMetric: Sendable {
    private let sample: @Sendable () -> Void

    private init(sample: @escaping @Sendable () -> Void) {
        self.sample = sample
    }

    /// A gauge set to `read()` at each scrape.
    public static func gauge(_ label: String, _ read: @escaping @Sendable () -> Int) -> ScrapedMetric {
        let gauge = Gauge(label: label)
        return ScrapedMetric { gauge.record(read()) }
    }

    /// A counter that follows a running total: at each scrape it grows by what
    /// `total()` grew since the last one (a total that shrinks adds nothing).
    public static func counter(_ label: String, total: @escaping @Sendable () -> Int) -> ScrapedMetric {
        let counter = Counter(label: label)
        let counted = CountedTotal()
        return ScrapedMetric {
            let growth = counted.advance(to: total())
            if growth > 0 { counter.increment(by: growth) }
        }
    }

    /// Records the value now.
    func record() { sample() }
}

/// The total a scraped counter has already counted.
private final class CountedTotal: Sendable {
    private let counted = Mutex(0)

    /// Takes `total` as counted; returns how much it grew since the last call.
    func advance(to total: Int) -> Int {
        counted.withLock { counted in
            defer { counted = max(counted, total) }
            return total - counted
        }
    }
}
