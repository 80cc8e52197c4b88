import CommandLineSupport
import Metrics
import Prometheus
import ThumbnailHTTP
import ThumbnailKit
import ThumbnailServer

/// `serve`'s metrics: swift-metrics bootstrapped once per process onto a Prometheus
/// registry, which `/metrics` shows, with the values read at each scrape.
enum ServeMetrics {
    /// A registry that every swift-metrics metric of this process goes to from now on
    /// (``ServerMetrics``). Call once, before anything makes a metric (one made before goes nowhere).
    static func bootstrap() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(ServerMetrics.factory(registry: registry))
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
