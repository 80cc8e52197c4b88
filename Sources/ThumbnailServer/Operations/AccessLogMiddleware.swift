import Hummingbird
import Logging

/// Logs one line per request at `info` on the logger it is given, as metadata an
/// access-log handler lays out (`thumbnailer serve` writes it as one JSON object
/// per line on standard output): `method`, `path` (at most ``maximumPathBytes``),
/// `status`, `bytes` (the body's length: its `Content-Length`, 0 for `HEAD`),
/// `duration_ms` (until the response is handed to the HTTP layer) and `tier`
/// (the ``ThumbnailServer/tierField`` header, when the response has it). The message is empty.
public struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Where the lines go.
    public let logger: Logger

    /// Longer paths are cut to this many bytes: a 64 KB URL must not make a 64 KB log line.
    public static var maximumPathBytes: Int { 512 }


    /// A middleware that logs to `logger`.
    public init(logger: Logger) {
        self.logger = logger
    }

    /// Passes the request on to `next` and logs its line once the response is ready,
    /// or once `next` throws (with the status the error answers with, and no `bytes`);
    /// the response or error is passed back unchanged.
    public func handle(_ request: Request, context: Context,
                       next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            let bytes = request.method == .head ? 0 : response.body.contentLength
            log(request, status: response.status, bytes: bytes, tier: response.headers[ThumbnailServer.tierField], since: started)
            return response
        } catch {
            log(request, status: HTTPResponse.Status(answering: error), bytes: nil, tier: nil, since: started)
            throw error
        }
    }

    private func log(_ request: Request, status: HTTPResponse.Status, bytes: Int?, tier: String?, since started: ContinuousClock.Instant) {
        let elapsed = (ContinuousClock.now - started).components
        let milliseconds = Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds / 1_000_000_000_000) / 1000  // via whole microseconds
        var metadata: Logger.Metadata = [
            "method": .string(request.method.rawValue),
            "path": .string(Self.truncated(request.uri.path)),
            "status": .stringConvertible(status.code),
            "duration_ms": .stringConvertible((milliseconds * 1000).rounded() / 1000),
        ]
        if let bytes { metadata["bytes"] = .stringConvertible(bytes) }
        if let tier { metadata["tier"] = .string(tier) }
        logger.info("", metadata: metadata)
    }

    /// `path`, cut to ``maximumPathBytes`` bytes of UTF-8 (a character cut in two becomes U+FFFD).
    static func truncated(_ path: String) -> String {
        path.utf8.count <= maximumPathBytes ? path : String(decoding: path.utf8.prefix(maximumPathBytes), as: UTF8.self)
    }
}
