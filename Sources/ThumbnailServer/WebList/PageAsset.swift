import HTTPTypes
import Hummingbird
import NIOCore

/// One of the page's files (HTML, CSS, JavaScript), built into the module: its bytes in the buffer
/// every response shares, its type and its tag. Sent with `Cache-Control: no-cache`, so a browser
/// revalidates it (`If-None-Match` → 304) and a new server's page is never mixed with an old one's script.
struct PageAsset: Sendable {
    let bytes: ByteBuffer
    let contentType: String
    let entityTag: EntityTag

    init(_ bytes: [UInt8], contentType: String) {
        self.bytes = ByteBuffer(bytes: bytes)
        self.contentType = contentType
        entityTag = EntityTag(of: bytes)
    }

    /// The page itself: scripts and styles from the server alone, images from it or the page's blobs.
    static let html = PageAsset(PackageResources.index_html, contentType: "text/html; charset=utf-8")
    static let script = PageAsset(PackageResources.list_js, contentType: "text/javascript; charset=utf-8")
    static let style = PageAsset(PackageResources.list_css, contentType: "text/css; charset=utf-8")

    func response(to request: Request) -> Response {
        var headers: HTTPFields = [
            .eTag: entityTag.value,
            .cacheControl: "no-cache",
            .xContentTypeOptions: "nosniff",
            .contentSecurityPolicy: "default-src 'self'; img-src 'self' blob: data:; object-src 'none'; base-uri 'none'",
        ]
        if let condition = request.headers[.ifNoneMatch], entityTag.isMatched(byIfNoneMatch: condition) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = contentType
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: bytes))
    }
}
