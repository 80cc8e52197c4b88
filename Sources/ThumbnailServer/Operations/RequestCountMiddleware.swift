import Hummingbird
import Metrics

/// Counts requests by response status through swift-metrics: the counter
/// `thumbnailer_requests_total` with the dimension `status` (`200`, `404`, …). A
/// request whose handler throws counts under the status the error answers with.
public struct RequestCountMiddleware<Context: RequestContext>: RouterMiddleware {
    /// A middleware that counts through the process's metrics system (`MetricsSystem.bootstrap`).
    public init() {}

    /// Passes the request on to `next` and counts its response's status, or, when `next`
    /// throws, the status the error answers with: an `HTTPResponseError`'s own, else 500.
    /// The response or error is passed back unchanged.
    public func handle(_ request: Request, context: Context,
                       next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            let response = try await next(request, context)
            Self.count(response.status)
            return response
        } catch {
            Self.count(HTTPResponse.Status(answering: error))
            throw error
        }
    }

    private static func count(_ status: HTTPResponse.Status) {
        Counter(label: "thumbnailer_requests_total", dimensions: [("status", String(status.code))]).increment()
    }
}
