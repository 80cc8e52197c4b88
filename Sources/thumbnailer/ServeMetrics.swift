import CommandLineSupport
import Metrics
import Prometheus
import ThumbnailHTTP
import ThumbnailKit
import ThumbnailServer

/// `serve`'s metrics: swift-metrics bootstrapped once per process onto a Prometheus
/// registry, which `/metrics` shows, with the values read at each scrape.
enum ServeMetrics {
    /// Latency buckets of every swift-metrics `Timer` (`thumbnailer_response_seconds`):
    /// from a memory hit (well under a millisecond) to a slow origin's render.
    static let durationBuckets: [Duration] = [
        .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]

    /// A registry that every swift-metrics metric of this process goes to from now on.
    /// Call once, before anything makes a metric (one made before goes nowhere).
    static func bootstrap() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = durationBuckets
        MetricsSystem.bootstrap(factory)
        return registry
    }

    /// `/healthz`, `/readyz` on the disk cache and the store, and `/metrics` on `registry`
    /// with the bytes `pipeline` fetched and the peak RSS read at each scrape.
    static func operations(registry: PrometheusCollectorRegistry, diskCache: DiskCache, objectStore: S3ObjectStore?,
                           pipeline: ThumbnailPipeline) -> OperationsRoutes {
        OperationsRoutes(readinessChecks: [.diskCache(diskCache)] + (objectStore.map { [.objectStore($0)] } ?? []),
                         metrics: registry,
                         scrapedMetrics: [
                             .counter("thumbnailer_fetched_bytes_total") { pipeline.statistics.bytesDownloaded },
                             .gauge("thumbnailer_peak_rss_bytes") { ProcessMemory.peakResidentBytes },
                         ])
    }
}
