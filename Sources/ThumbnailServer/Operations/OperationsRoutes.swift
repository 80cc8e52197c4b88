import Hummingbird
import Logging
import Prometheus

/// What a server's operators and orchestrator ask it: `GET /healthz` (200 `ok` while
/// the process answers), `GET /readyz` (200 `ready` when every ``ReadinessCheck``
/// passes, else 503 naming the first that failed) and, with a registry, `GET /metrics`
/// (the registry in Prometheus's text format). An app adds them to its router beside
/// ``ThumbnailServer``'s routes; a static path wins over the thumbnails' catch-all.
///
/// ```swift
/// let registry = PrometheusCollectorRegistry()
/// MetricsSystem.bootstrap(ServerMetrics.factory(registry: registry))
/// OperationsRoutes(readinessChecks: [.diskCache(cache)], metrics: registry).addRoutes(to: router)
/// ThumbnailServer(pipeline: pipeline, signing: signing).addRoutes(to: router)
/// ```
public struct OperationsRoutes: Sendable {
    /// What `/readyz` checks, in order, on every request.
    public var readinessChecks: [ReadinessCheck]
    /// What `/metrics` shows; `nil`: no `/metrics` route.
    public var metrics: PrometheusCollectorRegistry?
    /// Values recorded at each scrape of `/metrics`, before the registry is read.
    public var scrapedMetrics: [ScrapedMetric]

    /// Routes with the given checks and metrics.
    /// - Parameters:
    ///   - readinessChecks: What `/readyz` checks, in order. Default: none, always ready.
    ///   - metrics: The registry `/metrics` shows. Default: `nil`, no `/metrics` route.
    ///   - scrapedMetrics: Values recorded at each scrape of `/metrics`. Default: none.
    public init(readinessChecks: [ReadinessCheck] = [], metrics: PrometheusCollectorRegistry? = nil,
                scrapedMetrics: [ScrapedMetric] = []) {
        self.readinessChecks = readinessChecks
        self.metrics = metrics
        self.scrapedMetrics = scrapedMetrics
    }

    /// Prometheus's text exposition format, version 0.0.4.
    static let metricsContentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Adds `GET` and `HEAD` of `healthz` and `readyz`, and `GET metrics` when there is a registry, under `router`.
    public func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
        router.get("healthz") { _, _ in Self.text("ok") }
        router.head("healthz") { _, _ in Self.text("ok") }
        router.get("readyz") { _, context in await readiness(logger: context.logger) }
        router.head("readyz") { _, context in await readiness(logger: context.logger) }
        if let metrics {
            router.get("metrics") { _, _ in
                for metric in scrapedMetrics { metric.record() }
                var headers = HTTPFields()
                headers[.contentType] = Self.metricsContentType
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.emitToBuffer())))
            }
        }
    }

    /// 200 when every check passes; else 503 naming the first that failed, whose
    /// error goes to the log only: a probe's answer is no place for paths or store replies.
    private func readiness(logger: Logger) async -> Response {
        for check in readinessChecks {
            if let error = await check.failure() {
                logger.warning("not ready: \(check.name): \(error)")
                return Self.text("not ready: \(check.name)", status: .serviceUnavailable)
            }
        }
        return Self.text("ready")
    }

    private static func text(_ line: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: line + "\n")))
    }
}
