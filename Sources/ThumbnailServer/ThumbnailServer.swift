import Hummingbird
import ThumbnailKit

/// Thumbnails over HTTP at imgproxy-style URLs,
/// `GET /{signature}/{size}/{fit|fill}/{base64url(source)}[.{jpg|png|webp}]`:
/// routes an app mounts in its own Hummingbird router, and what `thumbnailer serve` runs.
///
/// ```swift
/// let router = Router()
/// let thumbnails = ThumbnailServer(pipeline: pipeline, signing: .signed(try URLSigner(hexKey: key, hexSalt: salt)))
/// thumbnails.addRoutes(to: router.group("thumbnails"))
/// ```
///
/// A URL is checked (shape, then signature) before anything is fetched. A thumbnail is
/// answered with its `Content-Type`, `Content-Length`, an `ETag` (the SHA-256 of the bytes)
/// and `Cache-Control` (`immutable` when the URL is signed: its bytes never change);
/// `If-None-Match` gets 304 and `HEAD` the headers alone.
public struct ThumbnailServer: Sendable {
    /// Where thumbnails come from: a ``ThumbnailPipeline`` with its tiers.
    public let pipeline: any ThumbnailProviding
    /// Which URLs are accepted.
    public let signing: SigningPolicy
    /// How thumbnails are encoded. Default: JPEG quality 85, PNG when transparent.
    public var encoder: ThumbnailEncoder
    /// `Cache-Control`'s `max-age` in seconds. Default: a day.
    public var maxAge: Int

    public init(pipeline: any ThumbnailProviding, signing: SigningPolicy,
                encoder: ThumbnailEncoder = ThumbnailEncoder(), maxAge: Int = 86_400) {
        self.pipeline = pipeline
        self.signing = signing
        self.encoder = encoder
        self.maxAge = maxAge
    }

    /// Adds `GET` and `HEAD` for every path under `router` (its group's prefix, if any, is not part
    /// of the signed path). HEAD is answered as GET: the HTTP layer sends its headers without the body.
    public func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
        router.get("**") { request, context in await response(to: request, path: Self.path(in: context)) }
        router.head("**") { request, context in await response(to: request, path: Self.path(in: context)) }
    }

    /// The path below the mount point, from the catch-all's segments.
    private static func path(in context: some RequestContext) -> String {
        "/" + context.parameters.getCatchAll().joined(separator: "/")
    }

    private func response(to request: Request, path: String) async -> Response {
        do {
            let (bytes, format) = try await thumbnail(at: path)
            return success(bytes, format: format, request: request)
        } catch {
            return failure(error)
        }
    }

    /// The encoded thumbnail `path` asks for, and its format.
    /// - Throws: ``ServerFailure``, for every failure, with the status the client gets.
    private func thumbnail(at path: String) async throws(ServerFailure) -> ([UInt8], ImageFormat) {
        let url: ThumbnailURL
        do {
            url = try ThumbnailURL(path: path, signing: signing)
        } catch {
            throw ServerFailure(error)
        }
        if let asked = url.format, !ThumbnailEncoder.writableFormats.contains(asked.imageFormat) {
            throw .formatNotSupported
        }
        let thumbnail: Thumbnail
        do {
            thumbnail = try await pipeline.thumbnail(for: ThumbnailRequest(url: url.source, size: url.requestedSize))
        } catch {
            throw ServerFailure(ThumbnailError(error))
        }
        let format = url.format?.imageFormat ?? encoder.preferredFormat(for: thumbnail)
        do {
            return (try encoder.encode(thumbnail, as: format), format)
        } catch {
            throw ServerFailure(status: 500, message: "internal error")
        }
    }

    private func success(_ bytes: [UInt8], format: ImageFormat, request: Request) -> Response {
        let tag = EntityTag(of: bytes)
        var headers: HTTPFields = [
            .eTag: tag.value,
            .cacheControl: "public, max-age=\(maxAge)" + (isSigned ? ", immutable" : ""),
        ]
        if let condition = request.headers[.ifNoneMatch], tag.isMatched(byIfNoneMatch: condition) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = format.mediaType
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    private func failure(_ error: any Error) -> Response {
        let failure = error as? ServerFailure ?? ServerFailure(status: 500, message: "internal error")
        let body = Array((failure.message + "\n").utf8)
        return Response(status: HTTPResponse.Status(code: failure.status),
                        headers: [.contentType: "text/plain; charset=utf-8"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    private var isSigned: Bool {
        if case .signed = signing { true } else { false }
    }
}
