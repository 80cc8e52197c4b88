import Hummingbird
import ThumbnailHTTP
import ThumbnailServer

/// Thumbnails under /thumbnails in an app's own Hummingbird server, at URLs signed with its key and
/// salt (hex). The context and the channel handler let a client that hangs up cancel its render.
func makeApplication(pipeline: ThumbnailPipeline, hexKey: String, hexSalt: String) throws -> some ApplicationProtocol {
    let thumbnails = ThumbnailServer(pipeline: pipeline, signing: .signed(try URLSigner(hexKey: hexKey, hexSalt: hexSalt)))
    let router = Router(context: ThumbnailRequestContext.self)
    thumbnails.addRoutes(to: router.group("thumbnails"))
    return Application(router: router,
                       server: .http1(configuration: .init(additionalChannelHandlers: [thumbnails.hangUpHandler()])))
}

/// The signed path of a 320x200 WebP that fills its box with `source`, for a page to ask for.
func thumbnailPath(of source: String, signer: URLSigner) -> String {
    ThumbnailURL(size: .fit(width: 320, height: 200), mode: .fill, source: source, format: .webp)
        .path(signing: .signed(signer))
}
