import Foundation
import TestSupport
import Testing
import ThumbnailKit
import ThumbnailServer

/// Signatures `thumbnailer serve` must refuse with 403 before anything is fetched,
/// beyond ServeCommandTests' forged, truncated, other-size and unsigned ones: each
/// is a real signature of something else (another key, another salt, another mode,
/// format or source), or a signature segment no signer makes, or none at all.
@Suite final class ServeSignatureTests: Sendable {
    let origin: TestHTTPServer
    let temporary: TemporaryDirectory

    init() throws {
        origin = try TestHTTPServer.servingPortrait()
        temporary = try TemporaryDirectory()
        origin.route("/other.jpg", .init(body: try Fixtures.bytes(ofTestImage: ServeCommandTests.portrait)))
    }

    deinit { origin.stop() }

    /// `url`'s path signed by `signer`.
    static func signed(_ url: ThumbnailURL, by signer: URLSigner) -> String {
        url.path(signing: .signed(signer))
    }

    /// The signature segment of `signedPath`, put in front of `url`'s unsigned path.
    static func signature(of signedPath: String, on url: ThumbnailURL) -> String {
        "/" + signedPath.dropFirst().prefix { $0 != "/" } + url.unsignedPath
    }

    /// The bytes of a hex string of an even number of digits.
    static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)! }
    }

    @Test func signaturesOfAnythingElseAreRefusedWithNoOriginRequest() async throws {
        let key = ServeCommandTests.environment["THUMBNAILER_KEY"]!, salt = ServeCommandTests.environment["THUMBNAILER_SALT"]!
        let signer = try URLSigner(hexKey: key, hexSalt: salt)
        let portrait = ThumbnailURL(size: .fit(256), mode: .fit, source: origin.url("/portrait.jpg"))
        var filled = portrait
        filled.mode = .fill
        var png = portrait
        png.format = .png
        let other = ThumbnailURL(size: .fit(256), mode: .fit, source: origin.url("/other.jpg"))
        let genuine = Self.signed(portrait, by: signer)
        let genuineSignature = genuine.dropFirst().prefix { $0 != "/" }

        let refused: [(String, String)] = [
            ("another key", Self.signed(portrait, by: try URLSigner(hexKey: String(key.reversed()), hexSalt: salt))),
            ("another salt", Self.signed(portrait, by: try URLSigner(hexKey: key, hexSalt: String(salt.reversed())))),
            ("no salt", Self.signed(portrait, by: URLSigner(key: Self.bytes(hex: key), salt: []))),
            ("fit's signature on fill", Self.signature(of: genuine, on: filled)),
            ("no extension's signature on .png", Self.signature(of: genuine, on: png)),
            ("another source's signature", Self.signature(of: Self.signed(other, by: signer), on: portrait)),
            ("the signature padded", "/" + genuineSignature + "=" + portrait.unsignedPath),
            ("the signature upper-cased", "/" + genuineSignature.uppercased() + portrait.unsignedPath),
        ]
        let server = try await ServeProcess.start(["--cache-dir", temporary.path("cache"), "--private-addresses"],
                                                  environment: ServeCommandTests.environment)
        for (what, path) in refused {
            for method in ["GET", "HEAD"] {
                let response = try await server.get(path, method: method)
                #expect(response.status == 403, "\(what) (\(method) \(path)): \(response.status)")
            }
        }
        // No signature at all: the router folds the empty segment away, and three segments are malformed.
        #expect(try await server.get("/" + portrait.unsignedPath).status == 400)
        #expect(origin.receivedRequests.isEmpty, "\(origin.receivedRequests.map(\.path))")
        // The genuine signature is accepted, so the refusals were the signatures'.
        #expect(try await server.get(genuine).status == 200)
        #expect(try await server.stop().status == 0)
    }
}
