import Prometheus

/// How a thumbnail server's swift-metrics metrics become Prometheus's: counters,
/// meters and gauges as they are, every `Timer` (`thumbnailer_response_seconds`) a
/// histogram over ``durationBuckets``. Bootstrap once per process, before anything
/// makes a metric, then hand the registry to ``OperationsRoutes``:
///
/// ```swift
/// let registry = PrometheusCollectorRegistry()
/// MetricsSystem.bootstrap(ServerMetrics.factory(registry: registry))
/// ```
public enum ServerMetrics {
    /// From a memory hit (well under a millisecond) to a slow origin's render;
    /// swift-prometheus's defaults start at 5 ms, above every hit.
    public static let durationBuckets: [Duration] = [
        .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]

    /// A swift-metrics backend onto `registry`, timers with ``durationBuckets``.
    public static func factory(registry: PrometheusCollectorRegistry) -> PrometheusMetricsFactory {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = durationBuckets
        return factory
    }
}
