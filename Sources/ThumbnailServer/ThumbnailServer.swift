import HTTPTypes
import Hummingbird
import NIOCore
import ThumbnailKit

/// Thumbnails over HTTP at imgproxy-style URLs,
/// `GET /{signature}/{size}/{fit|fill}/{base64url(source)}[.{jpg|png|webp}]`:
/// routes an app mounts in its own Hummingbird router, and what `thumbnailer serve` runs.
///
/// ```swift
/// let thumbnails = ThumbnailServer(pipeline: pipeline, signing: .signed(try URLSigner(hexKey: key, hexSalt: salt)))
/// let router = Router(context: ThumbnailRequestContext.self)
/// thumbnails.addRoutes(to: router.group("thumbnails"))
/// let application = Application(router: router,
///                               server: .http1(configuration: .init(additionalChannelHandlers: [thumbnails.hangUpHandler()])))
/// ```
///
/// A URL is checked (shape, then signature) before anything is fetched. Thumbnails
/// come from the server's memory of encoded bytes, then the pipeline's disk tier
/// and object store (sent as stored, when in the format asked for), then a render
/// (see ``Limits``); requests for one thumbnail at once share one render. A
/// response carries `Content-Type`, `Content-Length`, an `ETag` (the SHA-256 of
/// the bytes), `Cache-Control` (`immutable` when the URL is signed: its bytes
/// never change), `Last-Modified` when the origin sent one, `Vary: Accept` when
/// the format was negotiated, `X-Thumbnail-Tier` (memory, disk, store or
/// render) and `X-Source-Size` (the original's, `4000x3000`); `If-None-Match`
/// gets 304 and `HEAD` the headers alone.
public struct ThumbnailServer: Sendable {
    /// How much work the server takes on.
    public struct Limits: Sendable {
        /// Renders at once (fetch and decode). Default: one per core.
        public var maximumRenders: Int
        /// Requests waiting for a render; past this the server answers 503 at once. Default: 128.
        public var maximumQueue: Int
        /// How long a request may take before it is answered 504 (its work is
        /// cancelled unless another request shares it); `nil` for no limit. Default: 10 s.
        public var deadline: Duration?
        /// Bytes of encoded thumbnails kept in memory. Default: 32 MiB.
        public var memoryBudget: Int

        /// Limits with the given bounds.
        /// - Parameters:
        ///   - maximumRenders: Renders at once. Default: ``/ThumbnailKit/ThumbnailPipeline/processorCount``.
        ///   - maximumQueue: Requests waiting for a render before 503. Default: 128.
        ///   - deadline: How long a request may take before 504; `nil` for no limit. Default: 10 s.
        ///   - memoryBudget: Bytes of encoded thumbnails kept in memory. Default: 32 MiB.
        public init(maximumRenders: Int = ThumbnailPipeline.processorCount, maximumQueue: Int = 128,
                    deadline: Duration? = .seconds(10), memoryBudget: Int = 32 << 20) {
            self.maximumRenders = maximumRenders
            self.maximumQueue = maximumQueue
            self.deadline = deadline
            self.memoryBudget = memoryBudget
        }
    }

    /// Which URLs are accepted.
    public let signing: SigningPolicy
    /// The source hosts allowed; `nil` for any (the pipeline's address policy still applies).
    public let allowList: SourceAllowList?
    /// `Cache-Control`'s `max-age` in seconds. Default: a day.
    public let maxAge: Int
    /// Where thumbnails come from.
    let pipeline: ThumbnailPipeline
    private let limits: Limits
    private let thumbnails: EncodedThumbnails
    private let hangUps = ClientHangUps()
    private let metrics = ServingMetrics()

    /// A server of the thumbnails `pipeline` makes, at URLs `signing` accepts.
    /// - Parameters:
    ///   - pipeline: where thumbnails come from: its tiers, and its encoder for the bytes sent.
    ///   - signing: which URLs are accepted: signed with a key, or any (for development).
    ///   - allowList: the source hosts allowed; any other gets 403 before anything is fetched.
    ///     Default: `nil`, any host.
    ///   - limits: renders at once, queue length, deadline and memory budget. Default: `Limits()`, each at its default.
    ///   - maxAge: `Cache-Control`'s `max-age` in seconds. Default: 86 400, a day.
    public init(pipeline: ThumbnailPipeline, signing: SigningPolicy, allowList: SourceAllowList? = nil,
                limits: Limits = Limits(), maxAge: Int = 86_400) {
        self.signing = signing
        self.allowList = allowList
        self.maxAge = maxAge
        self.limits = limits
        self.pipeline = pipeline
        thumbnails = EncodedThumbnails(
            pipeline: pipeline, memoryBudget: limits.memoryBudget,
            admission: RenderAdmission(maximumRenders: limits.maximumRenders, maximumQueue: limits.maximumQueue,
                                       metrics: metrics),
            metrics: metrics)
    }

    /// Adds `GET` and `HEAD` for every path under `router` (its group's prefix, if any, is not part
    /// of the signed path). HEAD is answered as GET: the HTTP layer sends its headers without the body.
    public func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
        router.get("**") { request, context in await respond(to: request, in: context) }
        router.head("**") { request, context in await respond(to: request, in: context) }
    }

    /// A channel handler for each connection's pipeline (HTTP/1's `additionalChannelHandlers`):
    /// with a ``ConnectionRequestContext``, a client that hangs up then cancels its request's work.
    public func hangUpHandler() -> some RemovableChannelHandler {
        ClientHangUpHandler(hangUps)
    }

    /// A memory hit is answered at once; anything else runs in a task of its own, which the
    /// client hanging up or the deadline cancels.
    private func respond(to request: Request, in context: some RequestContext) async -> Response {
        let started = ContinuousClock.now
        let path = "/" + context.parameters.getCatchAll().joined(separator: "/")
        let url: ThumbnailURL
        do {
            url = try ThumbnailURL(path: path, signing: signing)
        } catch {
            return failure(ServerFailure(error))
        }
        if let allowList, !allowList.allows(url.source) { return failure(.sourceRefused) }
        let choice = FormatChoice(asked: url.format, accept: request.headers[.accept])
        let key = ServedKey(source: url.source, size: url.requestedSize, format: choice.format)
        if let hit = thumbnails.inMemory(key) {
            metrics.answered(by: .memory, in: ContinuousClock.now - started)
            return success(hit, choice: choice, request: request)
        }
        let connection = (context as? any ConnectionRequestContext)?.connection
        return await hangUps.run(on: connection) { [self] in
            do {
                let thumbnail = try await withDeadline { try await thumbnails.thumbnail(for: key) }
                metrics.answered(by: thumbnail.tier, in: ContinuousClock.now - started)
                return success(thumbnail, choice: choice, request: request)
            } catch {
                // Cancelled by the client hanging up (or the server shutting down), not by the deadline.
                return failure(Task.isCancelled ? .clientClosedRequest : ServerFailure(error))
            }
        }
    }

    /// What `work` returns, unless the deadline passes first: then its task is cancelled and
    /// ``ServerFailure/deadlineExceeded`` thrown.
    private func withDeadline<Result: Sendable>(_ work: @escaping @Sendable () async throws -> Result) async throws -> Result {
        guard let deadline = limits.deadline else { return try await work() }
        return try await withThrowingTaskGroup(of: Result.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: deadline)
                throw ServerFailure.deadlineExceeded
            }
            defer { group.cancelAll() }
            // Both tasks end by returning or throwing: one always comes.
            return try await group.next()!
        }
    }

    private func success(_ thumbnail: ServedThumbnail, choice: FormatChoice, request: Request) -> Response {
        var headers: HTTPFields = [
            .eTag: thumbnail.entityTag.value,
            .cacheControl: "public, max-age=\(maxAge)" + (isSigned ? ", immutable" : ""),
            Self.tierField: thumbnail.tier.rawValue,
            Self.sourceSizeField: "\(thumbnail.source.orientedWidth)x\(thumbnail.source.orientedHeight)",
        ]
        if choice.variesWithAccept { headers[.vary] = "Accept" }
        if let lastModified = thumbnail.lastModified { headers[.lastModified] = lastModified }
        if let condition = request.headers[.ifNoneMatch], thumbnail.entityTag.isMatched(byIfNoneMatch: condition) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = thumbnail.format.mediaType
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: thumbnail.bytes))
    }

    private func failure(_ failure: ServerFailure) -> Response {
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8"]
        if let retryAfter = failure.retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: HTTPResponse.Status(code: failure.status), headers: headers,
                        body: ResponseBody(byteBuffer: ByteBuffer(string: failure.message + "\n")))
    }

    /// `X-Thumbnail-Tier`: which tier answered a thumbnail, `memory`, `disk`, `store` or `render`.
    public static let tierField = HTTPField.Name("X-Thumbnail-Tier")!
    /// `X-Source-Size`: the original's size after its orientation, `4000x3000`.
    public static let sourceSizeField = HTTPField.Name("X-Source-Size")!

    private var isSigned: Bool {
        if case .signed = signing { true } else { false }
    }
}
