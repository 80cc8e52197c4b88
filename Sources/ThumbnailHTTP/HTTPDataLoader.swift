import CFetch
import Dispatch
import Synchronization
import ThumbnailKit

/// Loads `http(s)://` URLs with libcurl, streaming each body into the
/// caller's sink through a bounded buffer, on limits no server can talk its
/// way past.
///
/// - **Memory**: each transfer holds at most ``Configuration/bufferCapacity``
///   bytes of body; when the sink is behind, libcurl stops reading the socket
///   (backpressure), so an endless or very fast body costs no more.
/// - **Size**: an announced `Content-Length` above ``/ThumbnailKit/DataRequest/maximumBytes``
///   is refused before any body byte; the bytes are counted too (decoded, and
///   for a compressed body encoded as well), so a missing or lying length changes nothing.
/// - **Compression**: a gzip or deflate `Content-Encoding` is undone one buffer
///   at a time, only as fast as the sink takes it, so a compressed body (a
///   gzip bomb included) holds no more memory than a plain one. Any other
///   encoding, or more than one, is
///   ``/ThumbnailKit/DataLoadingError/unsupportedContentEncoding(_:encoding:)``. A request
///   for images only (its ``/ThumbnailKit/DataRequest/accept`` lists `image/` types only)
///   asks for `Accept-Encoding: identity`, since images are compressed
///   already; any other asks for gzip or deflate, which text such as a feed
///   gains from. A server may answer gzip either way, and that is undone.
/// - **Where it goes**: only `http` and `https`, at most
///   ``Configuration/maximumRedirects`` redirects; a redirect elsewhere fails
///   naming its target. With ``AddressPolicy/publicOnly``, loopback, private
///   and link-local addresses are refused after DNS resolution, for every
///   connection, redirects included.
/// - **Time**: a connect timeout, a whole-transfer timeout, and a speed floor
///   (``Configuration/lowSpeedLimit`` over ``Configuration/lowSpeedTime``) that
///   ends trickling or silent servers.
/// - A status other than 2xx is ``/ThumbnailKit/DataLoadingError/httpStatus(_:status:retryAfter:)``
///   with the server's `Retry-After`; a conditional request answered 304
///   returns ``/ThumbnailKit/ResponseHead/notModified`` with no body.
/// - Cancelling the calling task removes the transfer at once.
/// - Connections are reused, libcurl negotiates HTTP/2 over TLS when a server offers it, and the
///   proxy variables curl users set (`https_proxy`, `http_proxy`, `no_proxy`)
///   are honoured.
///
/// All transfers of one loader share one I/O thread and one connection pool.
public final class HTTPDataLoader: DataLoading {
    /// Which addresses a transfer may connect to.
    public enum AddressPolicy: Sendable, Hashable {
        /// Any address: fine on a laptop fetching what its user chose.
        case any
        /// Public addresses only: on a server, a feed (or a redirect) must not
        /// reach loopback services, the private network or cloud metadata
        /// endpoints (server-side request forgery). With a proxy, the proxy's
        /// address is the one checked.
        case publicOnly

        /// The policy for the images of a feed at `location`: ``publicOnly`` for a
        /// feed on the web, whose author is a stranger who must not reach this
        /// machine's or its network's private services through it; ``any`` for a
        /// local feed (a file or path) or one on `localhost` or a private or
        /// loopback address literal, which the user chose on their own machine or network.
        package static func `default`(forFeedAt location: String) -> AddressPolicy {
            guard SchemeRoutingDataLoader.isWebURL(location) else { return .any }
            let authority = location.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: true).dropFirst().first ?? ""
            var host = String(authority.split(separator: "@").last ?? "")
            if host.hasPrefix("["), let end = host.firstIndex(of: "]") {
                host = String(host[host.index(after: host.startIndex)..<end])
            } else if let colon = host.lastIndex(of: ":") {
                host = String(host[..<colon])
            }
            host = host.lowercased()
            if host == "localhost" || host.hasSuffix(".localhost") || isPrivate(host) == true { return .any }
            return .publicOnly
        }

        /// Whether ``publicOnly`` refuses a numeric IPv4 or IPv6 address; `nil` when `address` is not one.
        package static func isPrivate(_ address: String) -> Bool? {
            switch cf_address_is_private(address) {
            case 1: true
            case 0: false
            default: nil
            }
        }
    }

    /// Limits and policies. The defaults suit images from untrusted servers.
    public struct Configuration: Sendable {
        /// The longest wait for a connection. Default: 15 s.
        public var connectTimeout: Duration
        /// The longest a whole transfer may take, however steadily bytes arrive, or `nil` for no
        /// such limit (the speed floor still ends a stalled one). Default: 120 s.
        public var transferTimeout: Duration?
        /// A transfer slower than this many bytes per second for ``lowSpeedTime`` ends as stalled. Default: 1024.
        public var lowSpeedLimit: Int
        /// How long a transfer may stay under ``lowSpeedLimit`` (whole seconds). Default: 15 s.
        public var lowSpeedTime: Duration
        /// Redirects followed at most. Default: 5.
        public var maximumRedirects: Int
        /// Which addresses may be reached. Default: ``AddressPolicy/any``.
        public var addressPolicy: AddressPolicy
        /// Body bytes one transfer may hold in memory before it is paused. Default: 256 KiB.
        public var bufferCapacity: Int
        /// The `User-Agent` header. Default: `Thumbnailer/` and ``/ThumbnailKit/ThumbnailerVersion/current``.
        public var userAgent: String

        /// Every limit is a limit: a zero time or speed, which libcurl would take as
        /// "none", is a programming error. Lift the transfer time with `nil`.
        public init(connectTimeout: Duration = .seconds(15), transferTimeout: Duration? = .seconds(120),
                    lowSpeedLimit: Int = 1024, lowSpeedTime: Duration = .seconds(15), maximumRedirects: Int = 5,
                    addressPolicy: AddressPolicy = .any, bufferCapacity: Int = 256 * 1024,
                    userAgent: String = "Thumbnailer/\(ThumbnailerVersion.current)") {
            precondition(connectTimeout > .zero && transferTimeout.map { $0 > .zero } != false && lowSpeedTime > .zero,
                         "a time limit must be positive (no transfer time limit: nil)")
            precondition(lowSpeedLimit >= 1 && maximumRedirects >= 0 && bufferCapacity >= 1, "a limit must be positive")
            self.connectTimeout = connectTimeout
            self.transferTimeout = transferTimeout
            self.lowSpeedLimit = lowSpeedLimit
            self.lowSpeedTime = lowSpeedTime
            self.maximumRedirects = maximumRedirects
            self.addressPolicy = addressPolicy
            self.bufferCapacity = bufferCapacity
            self.userAgent = userAgent
        }
    }

    /// libcurl's receive buffer: the most one piece of body can be.
    static let receiveBufferBytes = 64 * 1024

    /// The limits and policies every transfer of this loader follows, fixed at creation.
    public let configuration: Configuration
    private let client: CurlClient
    private let usage = BufferUsageMeter()
    /// Where sinks are written, one piece at a time. A queue of its own (not the
    /// global pool, whose threads decodes can all hold) keeps transfers flowing
    /// while every core decodes.
    private let sinkQueue = DispatchQueue(label: "ThumbnailHTTP.HTTPDataLoader.sinks")

    /// Starts the loader's I/O thread.
    /// - Throws: ``/ThumbnailKit/DataLoadingError/network(_:reason:)`` when libcurl cannot start.
    public init(configuration: Configuration = Configuration()) throws {
        precondition(configuration.bufferCapacity >= Self.receiveBufferBytes,
                     "bufferCapacity must hold at least one receive buffer (64 KiB)")
        self.configuration = configuration
        client = try CurlClient(refusesPrivateAddresses: configuration.addressPolicy == .publicOnly,
                                receiveBufferBytes: Self.receiveBufferBytes)
    }

    /// Body bytes this loader's transfers hold in memory now (queued or being
    /// written to a sink). Never more than ``Configuration/bufferCapacity`` per transfer.
    package var bufferedBodyBytes: Int { usage.current }

    /// The most ``bufferedBodyBytes`` has been.
    package var peakBufferedBodyBytes: Int { usage.peak }

    public func load(_ request: DataRequest, into sink: any BodySink,
                     progress: @escaping @Sendable (TransferProgress) -> Void) async throws -> ResponseHead {
        try await load(request, into: sink, progress: progress, adjusting: nil)
    }

    /// Completes a request just before it starts: sets more of `cf_request` (signing, headers),
    /// whose C strings it keeps valid while it calls the given start, and returns what that returned.
    typealias RequestAdjustment = @Sendable (inout cf_request, (inout cf_request) -> UInt64) -> UInt64

    /// ``load(_:into:progress:)`` with the request completed by `adjust` (``S3ObjectStore``'s signed GETs).
    func load(_ request: DataRequest, into sink: any BodySink, progress: @escaping @Sendable (TransferProgress) -> Void,
              adjusting adjust: RequestAdjustment?) async throws -> ResponseHead {
        // libcurl would guess a scheme for "host/path"; only what says http(s) is fetched.
        guard SchemeRoutingDataLoader.isWebURL(request.url) else { throw DataLoadingError.unsupportedURL(request.url) }
        let transfer = HTTPTransfer(request: request, configuration: configuration, usage: usage)
        let id = Atomic<UInt64>(0)
        return try await withTaskCancellationHandler {
            try Task.checkCancellation()
            let started = start(transfer, adjusting: adjust)
            guard started != 0 else { throw DataLoadingError.network(request.url, reason: "libcurl could not start the transfer") }
            id.store(started, ordering: .sequentiallyConsistent)
            // A cancellation that came while starting found no id to cancel.
            if Task.isCancelled { client.cancel(started) }
            return try await drain(transfer, id: started, into: sink, progress: progress)
        } onCancel: {
            let started = id.load(ordering: .sequentiallyConsistent)
            if started != 0 { client.cancel(started) }
        }
    }

    /// Hands the transfer to libcurl; its callbacks own one reference until `on_complete`.
    private func start(_ transfer: HTTPTransfer, adjusting adjust: RequestAdjustment?) -> UInt64 {
        let request = transfer.request
        let context = Unmanaged.passRetained(transfer)
        var callbacks = cf_callbacks(
            context: context.toOpaque(),
            on_response: { context, response in
                Unmanaged<HTTPTransfer>.fromOpaque(context!).takeUnretainedValue().receive(response!.pointee)
            },
            on_body: { context, bytes, count in
                Unmanaged<HTTPTransfer>.fromOpaque(context!).takeUnretainedValue()
                    .receive(UnsafeRawBufferPointer(start: bytes, count: count))
            },
            on_complete: { context, result in
                Unmanaged<HTTPTransfer>.fromOpaque(context!).takeRetainedValue().complete(result!.pointee)
            })
        let id = withOptionalCString(request.validators?.etag) { etag in
            withOptionalCString(request.validators?.lastModified) { lastModified in
                withOptionalCString(request.accept) { accept in
                    Self.acceptEncoding(for: request).withCString { acceptEncoding in
                        request.url.withCString { url in
                            configuration.userAgent.withCString { userAgent in
                                var options = cf_request()
                                options.url = url
                                options.if_none_match = etag
                                options.if_modified_since = lastModified
                                options.user_agent = userAgent
                                options.accept = accept
                                options.accept_encoding = acceptEncoding
                                options.max_bytes = Int64(request.maximumBytes)
                                options.connect_timeout_ms = Self.milliseconds(configuration.connectTimeout)
                                // libcurl's 0 is "no limit": only an explicit nil asks for it.
                                options.total_timeout_ms = configuration.transferTimeout.map(Self.milliseconds) ?? 0
                                options.low_speed_limit = configuration.lowSpeedLimit
                                options.low_speed_time_s = max(1, Int(configuration.lowSpeedTime.inSeconds.rounded(.up)))
                                options.max_redirects = configuration.maximumRedirects
                                guard let adjust else { return client.start(&options, &callbacks) }
                                return adjust(&options) { client.start(&$0, &callbacks) }
                            }
                        }
                    }
                }
            }
        }
        if id == 0 { context.release() }
        return id
    }

    /// Writes the body into `sink` as it arrives, off the cooperative pool.
    private func drain(_ transfer: HTTPTransfer, id: UInt64, into sink: any BodySink,
                       progress: @escaping @Sendable (TransferProgress) -> Void) async throws -> ResponseHead {
        var expected: Int?
        var received = 0
        while true {
            switch await transfer.next() {
            case let .head(head):
                expected = head.expectedBytes
                try await consume(transfer, id: id) { try sink.begin(head) }
                progress(TransferProgress(receivedBytes: 0, expectedBytes: expected))
            case let .bytes(bytes):
                try await consume(transfer, id: id, releasing: bytes.count) {
                    try bytes.withUnsafeBytes { try sink.write($0) }
                }
                received += bytes.count
                progress(TransferProgress(receivedBytes: received, expectedBytes: expected.map { max($0, received) }))
            case let .end(result):
                return try result.get()
            }
        }
    }

    /// Runs sink work on the sink queue; releases `count` held bytes after it
    /// (resuming a paused transfer); a sink failure ends the transfer.
    private func consume(_ transfer: HTTPTransfer, id: UInt64, releasing count: Int = 0,
                         _ work: @escaping @Sendable () throws -> Void) async throws {
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                sinkQueue.async { continuation.resume(with: Result { try work() }) }
            }
        } catch {
            _ = transfer.written(count)
            transfer.abandon(because: error)
            client.cancel(id)
            throw error
        }
        if transfer.written(count) { client.resume(id) }
    }

    /// `identity` for a request that accepts images only, which are compressed already; gzip or
    /// deflate (all that is undone) for anything else, such as a feed's text.
    static func acceptEncoding(for request: DataRequest) -> String {
        let types = request.accept?.split(separator: ",") ?? []
        let imagesOnly = !types.isEmpty && types.allSatisfy { $0.drop { $0 == " " || $0 == "\t" }.lowercased().hasPrefix("image/") }
        return imagesOnly ? "identity" : "gzip, deflate"
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int((duration.inSeconds * 1000).rounded(.up))
    }
}

private func withOptionalCString<Result>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> Result) -> Result {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}
