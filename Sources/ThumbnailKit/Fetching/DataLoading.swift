/// Where the bytes of an image come from: the role the pipeline fetches
/// through (HTTP, files, or a test's stand-in), as Nuke's `DataLoading`.
///
/// A body is never collected by the loader: it streams into the ``BodySink``
/// the caller passes (the original disk tier's temporary file, or a bounded
/// buffer), so what a loader holds in memory is bounded by its own buffers.
public protocol DataLoading: Sendable {
    /// Streams the body `request` names into `sink`, calling `progress` as bytes arrive.
    /// Returns once the whole body is in the sink (nothing, for a 304).
    /// - Throws: ``DataLoadingError``; what `sink` threw; `CancellationError`
    ///   when the calling task is cancelled.
    func load(_ request: DataRequest, into sink: any BodySink,
              progress: @escaping @Sendable (TransferProgress) -> Void) async throws -> ResponseHead
}

extension DataLoading {
    /// The whole body in memory, for small documents such as feeds: it costs
    /// up to ``DataRequest/maximumBytes``.
    public func loadBytes(_ request: DataRequest,
                          progress: @escaping @Sendable (TransferProgress) -> Void = { _ in }) async throws -> [UInt8] {
        let sink = MemoryBodySink()
        _ = try await load(request, into: sink, progress: progress)
        return sink.bytes
    }
}

/// What to load.
public struct DataRequest: Sendable, Hashable {
    /// An `http(s)://` or `file://` URL, or a plain path.
    public var url: String
    /// Refuse anything larger, judged by the announced length before reading and by the bytes while reading. Default: 50 MB.
    /// A limit always: 0 accepts an empty body only.
    public var maximumBytes: Int
    /// Validators of a copy already held, for a conditional request (a 304 costs no body).
    public var validators: Validators?
    /// The media types the caller can use, for an HTTP `Accept` header; `nil` accepts anything.
    /// The pipeline asks for `ImageFormat/acceptedMediaTypes`, so a content-negotiating CDN
    /// sends a format the decoder reads.
    public var accept: String?

    /// The `ETag` and `Last-Modified` of a stored copy.
    public struct Validators: Sendable, Hashable {
        /// The stored copy's `ETag`, sent as `If-None-Match`; `nil` when it had none.
        public var etag: String?
        /// The stored copy's `Last-Modified`, sent as `If-Modified-Since`; `nil` when it had none.
        public var lastModified: String?

        /// Validators as a stored copy's metadata holds them.
        /// - Parameters:
        ///   - etag: The stored copy's `ETag`, or `nil`.
        ///   - lastModified: The stored copy's `Last-Modified`, or `nil`.
        public init(etag: String?, lastModified: String?) {
            self.etag = etag
            self.lastModified = lastModified
        }
    }

    /// A request for the body at `url`.
    /// - Parameters:
    ///   - url: An `http(s)://` or `file://` URL, or a plain path.
    ///   - maximumBytes: The largest body accepted, in bytes. Default: 50 MB.
    ///   - validators: Validators of a stored copy, for a conditional request. Default: none.
    ///   - accept: The media types wanted, for an HTTP `Accept` header. Default: `nil`, anything.
    public init(url: String, maximumBytes: Int = 50_000_000, validators: Validators? = nil, accept: String? = nil) {
        self.url = url
        self.maximumBytes = maximumBytes
        self.validators = validators
        self.accept = accept
    }
}

/// Bytes received so far, and the total when it is known.
public struct TransferProgress: Sendable, Hashable {
    /// Body bytes received so far.
    public let receivedBytes: Int
    /// The announced length of the body in bytes; `nil` when none was announced.
    public let expectedBytes: Int?

    /// Progress after `receivedBytes` of `expectedBytes` (`nil`: total unknown).
    public init(receivedBytes: Int, expectedBytes: Int?) {
        self.receivedBytes = receivedBytes
        self.expectedBytes = expectedBytes
    }

    /// 0…100 when the total is known.
    public var percent: Double? {
        guard let expectedBytes, expectedBytes > 0 else { return nil }
        return min(100, Double(receivedBytes) * 100 / Double(expectedBytes))
    }
}

/// What the server (or file) said about a body, before any of it.
public struct ResponseHead: Sendable, Hashable {
    /// The server said the stored copy is current (304): keep using it. No body follows.
    public var notModified: Bool
    /// The response's `ETag`, as sent; `nil` when there was none (always, for a file).
    public var etag: String?
    /// The response's `Last-Modified`, as sent; `nil` when there was none (always, for a file).
    public var lastModified: String?
    /// The response's `Content-Type`; `nil` when there was none (always, for a file).
    public var contentType: String?
    /// The announced length, when there was one (never trusted: the size limit counts bytes).
    public var expectedBytes: Int?

    /// A head with the given facts; each defaults to absent (`false`, `nil`).
    /// - Parameters:
    ///   - notModified: The server answered 304.
    ///   - etag: The `ETag` sent.
    ///   - lastModified: The `Last-Modified` sent.
    ///   - contentType: The `Content-Type` sent.
    ///   - expectedBytes: The announced length of the body in bytes.
    public init(notModified: Bool = false, etag: String? = nil, lastModified: String? = nil,
                contentType: String? = nil, expectedBytes: Int? = nil) {
        self.notModified = notModified
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
        self.expectedBytes = expectedBytes
    }
}

/// Why bytes could not be loaded.
public enum DataLoadingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing is at that path or URL.
    case notFound(String)
    /// It exists but could not be read (permissions, a directory, an I/O error).
    case unreadable(String, reason: String)
    /// It is larger than ``DataRequest/maximumBytes``.
    case tooLarge(String, bytes: Int, limit: Int)
    /// The URL's scheme is not one this loader serves, or the URL is malformed.
    case unsupportedURL(String)
    /// The server answered with a status other than 2xx (or 304 to a conditional request).
    case httpStatus(String, status: Int, retryAfter: Duration?)
    /// No connection within the connect timeout.
    case timedOut(String, after: Duration)
    /// The body kept arriving above the speed floor but outlasted the whole-transfer
    /// timeout: a server that slow stays slow, so this is not retried.
    case transferTimedOut(String, after: Duration)
    /// The connection could not be made or broke (refused, reset, host not found).
    case network(String, reason: String)
    /// The body ended before the announced length: the connection was dropped mid-transfer.
    case truncated(String, received: Int, expected: Int)
    /// Fewer than `bytesPerSecond` arrived for `duration`: a trickling or silent server.
    case stalled(String, bytesPerSecond: Int, duration: Duration)
    /// A redirect pointed at `target`, whose scheme is not followed (only `http` and `https` are).
    case redirectRefused(String, target: String)
    /// More redirects than the limit: a loop, or a chain too long to be honest.
    case tooManyRedirects(String, limit: Int)
    /// The host (or a redirect's) resolved only to loopback, private or link-local
    /// addresses, which the loader's address policy refuses.
    case privateAddressRefused(String, address: String)
    /// The body is in a `Content-Encoding` that is not undone: one other than gzip and deflate
    /// (`zstd`, `br`), or more than one (stacked, `gzip, gzip`). `encoding` is as the server sent it, cut to 64 characters.
    case unsupportedContentEncoding(String, encoding: String)
    /// The response cannot be read as it was sent (`reason` says why): headers over the limit, an
    /// invalid `Content-Length`, a corrupt or cut compressed body. The server would send it again.
    case invalidResponse(String, reason: String)

    /// Whether trying again may succeed: connect timeouts, stalls, network failures,
    /// dropped bodies, and the statuses ``RetryPolicy/isTransient(status:)`` names.
    /// A stall is bounded by the speed floor's time, so retrying it costs little; a
    /// body that outlasted the whole-transfer timeout would only trickle again.
    public var isTransient: Bool {
        switch self {
        case let .httpStatus(_, status, _): RetryPolicy.isTransient(status: status)
        case .timedOut, .network, .truncated, .stalled: true
        case .notFound, .unreadable, .tooLarge, .unsupportedURL, .redirectRefused, .tooManyRedirects,
             .privateAddressRefused, .transferTimedOut, .unsupportedContentEncoding, .invalidResponse: false
        }
    }

    /// The pause the server asked for with `Retry-After`, if any.
    public var retryAfter: Duration? {
        guard case let .httpStatus(_, _, retryAfter) = self else { return nil }
        return retryAfter
    }

    public var description: String {
        switch self {
        case let .notFound(url): "\(url): not found"
        case let .unreadable(url, reason): "\(url): cannot read: \(reason)"
        case let .tooLarge(url, bytes, limit): "\(url): \(bytes) bytes exceeds the limit of \(limit)"
        case let .unsupportedURL(url): "\(url): unsupported URL"
        case let .httpStatus(url, status, _): "\(url): HTTP \(status)"
        case let .timedOut(url, after): "\(url): timed out after \(after)"
        case let .transferTimedOut(url, after): "\(url): still incomplete after \(after), not retried"
        case let .network(url, reason): "\(url): \(reason)"
        case let .truncated(url, received, expected): "\(url): connection closed after \(received) of \(expected) bytes"
        case let .stalled(url, bytesPerSecond, duration):
            "\(url): stalled: fewer than \(bytesPerSecond) bytes/s for \(duration)"
        case let .redirectRefused(url, target):
            "\(url): redirected to \(target), refused: only http and https redirects are followed"
        case let .tooManyRedirects(url, limit): "\(url): more than \(limit) redirects"
        case let .privateAddressRefused(url, address):
            "\(url): refused to connect to \(address): a private address (loopback, private or link-local)"
        case let .unsupportedContentEncoding(url, encoding):
            encoding.split(separator: ",").filter { String($0).trimmingSpaces.lowercased() != "identity" }.count > 1
                ? "\(url): stacked Content-Encoding '\(encoding)': one layer of gzip or deflate is undone, no more"
                : "\(url): unsupported Content-Encoding '\(encoding)': only gzip and deflate are undone"
        case let .invalidResponse(url, reason): "\(url): \(reason)"
        }
    }
}
