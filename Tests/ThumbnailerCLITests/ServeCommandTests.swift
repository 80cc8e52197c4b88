import Foundation
import TestSupport
import Testing
import ThumbnailKit
import ThumbnailServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `thumbnailer serve` end to end: the built binary on a free loopback port, a
/// loopback origin counting its requests, URLs signed here with the key and salt
/// the server has in its environment.
@Suite final class ServeCommandTests: Sendable {
    let origin: TestHTTPServer
    let temporary: TemporaryDirectory
    static let portrait = "photo-friends-portrait-1000x1502.jpg"
    static let environment = ["THUMBNAILER_KEY": "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881",
                              "THUMBNAILER_SALT": "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"]
    static let signing = SigningPolicy.signed(try! URLSigner(hexKey: environment["THUMBNAILER_KEY"]!,
                                                             hexSalt: environment["THUMBNAILER_SALT"]!))

    init() throws {
        origin = try TestHTTPServer()
        temporary = try TemporaryDirectory()
        origin.route("/portrait.jpg", .init(body: try Fixtures.bytes(ofTestImage: Self.portrait)))
        origin.route("/missing.jpg", .init(status: 404, body: Array("gone".utf8)))
        origin.route("/page.jpg", .init(body: Array("<!doctype html><html><body>not an image</body></html>".utf8),
                                        headers: ["Content-Type": "text/html"]))
    }

    deinit { origin.stop() }

    /// A running `serve` and the port it printed.
    struct Server {
        let process: ChildProcess.Running
        let port: Int

        func get(_ path: String, method: String = "GET", headers: [String: String] = [:]) async throws -> TestHTTPClient.Response {
            try await runBlocking { [port] in try TestHTTPClient.request(method, port: port, path: path, headers: headers) }
        }

        /// SIGTERM, then the exit (killed after 60 s).
        func stop() async throws -> ChildProcess.Outcome {
            process.signal(SIGTERM)
            return try await runBlocking { [process] in process.wait(within: .init(duration: .seconds(60))) }
        }
    }

    /// Starts `serve --port 0 --private-addresses` (the origin is on loopback) and waits for its address line.
    func startServer(_ options: [String] = ["--private-addresses"],
                     environment: [String: String] = ServeCommandTests.environment) async throws -> Server {
        try await Self.startServe(["--port", "0", "--cache-dir", temporary.path("cache")] + options, environment: environment)
    }

    func path(_ originPath: String, size: ThumbnailSize = .fit(256), mode: ResizeMode = .fit,
              format: OutputFormat? = nil, signing: SigningPolicy = ServeCommandTests.signing) -> String {
        ThumbnailURL(size: size, mode: mode, source: origin.url(originPath), format: format).path(signing: signing)
    }

    @Test func servesASignedThumbnailThenFromMemory() async throws {
        let server = try await startServer()
        let first = try await server.get(path("/portrait.jpg"))
        #expect(first.status == 200)
        #expect(first.headers["content-type"] == "image/jpeg")
        #expect(first.headers["content-length"] == String(first.body.count))
        #expect(first.headers["etag"] == "\"" + SHA256.hex(SHA256.digest(first.body)) + "\"")
        #expect(first.headers["cache-control"] == "public, max-age=86400, immutable")
        let thumbnail = try await ThumbnailDecoder(size: .original).decode(first.body)
        #expect((thumbnail.width, thumbnail.height) == (170, 256))

        let second = try await server.get(path("/portrait.jpg"))
        #expect(second.status == 200)
        #expect(second.body == first.body)
        #expect(origin.requestCount("/portrait.jpg") == 1)

        let png = try await server.get(path("/portrait.jpg", size: .fit(width: 100, height: 50), format: .png))
        #expect(png.status == 200)
        #expect(png.headers["content-type"] == "image/png")
        let small = try await ThumbnailDecoder(size: .original).decode(png.body)
        #expect((small.width, small.height) == (33, 50))

        // fill: the box exactly, covered and cut from the centre, an odd box on a portrait photo.
        let filled = try await server.get(path("/portrait.jpg", size: .fit(width: 101, height: 57), mode: .fill))
        #expect(filled.status == 200)
        let box = try await ThumbnailDecoder(size: .original).decode(filled.body)
        #expect((box.width, box.height) == (101, 57))
        #expect(try await server.stop().status == 0)
    }

    @Test func answersIfNoneMatchAndHead() async throws {
        let server = try await startServer()
        let full = try await server.get(path("/portrait.jpg"))
        let tag = try #require(full.headers["etag"])
        let unchanged = try await server.get(path("/portrait.jpg"), headers: ["If-None-Match": "\"other\", " + tag])
        #expect(unchanged.status == 304)
        #expect(unchanged.body.isEmpty)
        #expect(unchanged.headers["etag"] == tag)
        let changed = try await server.get(path("/portrait.jpg"), headers: ["If-None-Match": "\"other\""])
        #expect(changed.status == 200)
        #expect(changed.body == full.body)

        let head = try await server.get(path("/portrait.jpg"), method: "HEAD")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.headers["content-length"] == String(full.body.count))
        #expect(head.headers["content-type"] == "image/jpeg")
        #expect(head.headers["etag"] == tag)
        #expect(try await server.stop().status == 0)
    }

    @Test func refusesABadSignatureWithoutAskingTheOrigin() async throws {
        let server = try await startServer()
        let good = path("/portrait.jpg")
        let signature = good.dropFirst().prefix { $0 != "/" }
        let rest = good.dropFirst(signature.count + 1)
        var forged = Array(signature)
        forged[5] = forged[5] == "A" ? "B" : "A"
        let otherSize = path("/portrait.jpg", size: .fit(512))
        let otherSignature = otherSize.dropFirst().prefix { $0 != "/" }
        for bad in ["/" + String(forged) + rest, "/" + signature.dropLast(3) + rest, "/" + otherSignature + rest, "/_" + rest] {
            let response = try await server.get(bad)
            #expect(response.status == 403, "\(bad)")
            #expect(String(decoding: response.body, as: UTF8.self) == "invalid signature\n")
        }
        #expect(origin.requestCount("/portrait.jpg") == 0)
        #expect(try await server.stop().status == 0)
    }

    @Test func mapsOriginFailuresAndMalformedURLs() async throws {
        let server = try await startServer()
        let missing = try await server.get(path("/missing.jpg"))
        #expect(missing.status == 404)
        #expect(String(decoding: missing.body, as: UTF8.self) == "source not found\n")
        let page = try await server.get(path("/page.jpg"))
        #expect(page.status == 415)
        #expect(String(decoding: page.body, as: UTF8.self) == "source is not a supported image\n")
        #expect(try await server.get("/x/256/fit").status == 400)
        #expect(try await server.get(path("/portrait.jpg", format: .webp)).status == 400)
        #expect(origin.requestCount("/portrait.jpg") == 0)
        #expect(try await server.stop().status == 0)
    }

    @Test func refusesALoopbackSourceByDefault() async throws {
        let server = try await startServer([])
        let response = try await server.get(path("/portrait.jpg"))
        #expect(response.status == 403)
        #expect(String(decoding: response.body, as: UTF8.self) == "source refused\n")
        #expect(origin.requestCount("/portrait.jpg") == 0)
        #expect(try await server.stop().status == 0)
    }

    @Test func servesUnsignedURLsOnlyWhenAskedTo() async throws {
        let server = try await startServer(["--private-addresses", "--insecure-unsigned"], environment: [:])
        let unsigned = try await server.get(path("/portrait.jpg", signing: .unsigned))
        #expect(unsigned.status == 200)
        #expect(unsigned.headers["cache-control"] == "public, max-age=86400")
        #expect(try await server.get(path("/portrait.jpg")).status == 403)
        #expect(try await server.stop().status == 0)

        let refused = try await ChildProcess.run(["serve", "--port", "0", "--cache-dir", temporary.path("cache")],
                                                 environment: ["THUMBNAILER_KEY": "", "THUMBNAILER_SALT": ""],
                                                 limits: .init(duration: .seconds(60)))
        #expect(refused.status == 64, "\(refused.summary)")
    }

    @Test func stopsOnSIGINTToo() async throws {
        let server = try await startServer()
        server.process.signal(SIGINT)
        let outcome = try await runBlocking { [process = server.process] in process.wait(within: .init(duration: .seconds(60))) }
        #expect(outcome.status == 0, "\(outcome.summary)")
    }
}
