import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ThumbnailKit

/// Loads `http(s)://` URLs with `URLSession`, streaming the body through a
/// delegate so that progress is reported as bytes arrive and the size limit
/// holds while reading, not only after.
///
/// - A status other than 2xx is a ``DataLoadingError/httpStatus(_:status:retryAfter:)``
///   (URLSession itself does not throw on 404), with the server's `Retry-After`.
/// - An announced `Content-Length` above ``DataRequest/maximumBytes`` is
///   refused before any of the body is read; a body that grows past it while
///   streaming is cut off.
/// - A body shorter than its `Content-Length` is ``DataLoadingError/truncated(_:received:expected:)``,
///   never a short success.
/// - Cancelling the calling task cancels the transfer and throws `CancellationError`.
/// - A conditional request (``DataRequest/validators``) answered 304 returns
///   ``LoadedData/notModified`` with no body.
public final class URLSessionDataLoader: DataLoading {
    /// Timeouts and connection settings.
    public struct Configuration: Sendable {
        /// The longest wait for a connection, the response, or the next bytes of the body. Default: 15 s.
        public var connectTimeout: Duration
        /// The longest a whole transfer may take, however steadily bytes arrive. Default: 120 s.
        public var transferTimeout: Duration
        /// Connections kept per host (the pipeline's download limit bounds the transfers). Default: 8.
        public var maximumConnectionsPerHost: Int
        /// The `User-Agent` header.
        public var userAgent: String

        public init(connectTimeout: Duration = .seconds(15), transferTimeout: Duration = .seconds(120),
                    maximumConnectionsPerHost: Int = 8, userAgent: String = "Thumbnailer/1") {
            self.connectTimeout = connectTimeout
            self.transferTimeout = transferTimeout
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
            self.userAgent = userAgent
        }
    }

    public let configuration: Configuration
    private let session: URLSession
    private let transfers: TransferRegistry

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let settings = URLSessionConfiguration.ephemeral
        settings.urlCache = nil
        settings.requestCachePolicy = .reloadIgnoringLocalCacheData
        settings.httpShouldSetCookies = false
        settings.httpMaximumConnectionsPerHost = configuration.maximumConnectionsPerHost
        // Backstops only: on Linux these count whole seconds. The transfer's
        // watchdog enforces the configured timeouts exactly.
        settings.timeoutIntervalForRequest = (configuration.connectTimeout.inSeconds + 1).rounded(.up)
        settings.timeoutIntervalForResource = (configuration.transferTimeout.inSeconds + 1).rounded(.up)
        settings.httpAdditionalHeaders = ["User-Agent": configuration.userAgent]
        transfers = TransferRegistry()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "ThumbnailHTTP.URLSessionDataLoader"
        session = URLSession(configuration: settings, delegate: transfers, delegateQueue: queue)
    }

    deinit { session.invalidateAndCancel() }

    public func load(_ request: DataRequest, progress: @escaping @Sendable (TransferProgress) -> Void) async throws -> LoadedData {
        guard let url = URL(string: request.url), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host != nil
        else { throw DataLoadingError.unsupportedURL(request.url) }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData,
                                    timeoutInterval: (configuration.connectTimeout.inSeconds + 1).rounded(.up))
        if let etag = request.validators?.etag { urlRequest.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        if let date = request.validators?.lastModified { urlRequest.setValue(date, forHTTPHeaderField: "If-Modified-Since") }

        let task = session.dataTask(with: urlRequest)
        let transfer = Transfer(request: request, idleTimeout: configuration.connectTimeout,
                                transferTimeout: configuration.transferTimeout, progress: progress)
        transfers.register(transfer, for: task.taskIdentifier)
        let watchdog = Task {
            while true {
                switch transfer.checkTimeouts(at: .now) {
                case let .expired(timeout):
                    if transfer.fail(with: .timedOut(request.url, after: timeout)) { task.cancel() }
                    return
                case let .checkAgain(instant):
                    try await Task.sleep(until: instant, clock: .continuous)
                }
            }
        }
        defer { watchdog.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.begin(continuation)
                // A cancellation that came first found nothing running: start
                // nothing (URLSession on Linux runs a task resumed after its
                // cancel()), and one that came while resuming stops it now.
                guard !Task.isCancelled else {
                    transfers.unregister(task.taskIdentifier)
                    transfer.cancel()
                    return
                }
                task.resume()
                if Task.isCancelled { task.cancel() }
            }
        } onCancel: {
            transfer.cancel()
            task.cancel()
        }
    }
}
