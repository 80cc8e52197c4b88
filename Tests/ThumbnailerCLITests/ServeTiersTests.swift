import TestSupport
import Testing
import ThumbnailKit
import ThumbnailServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `thumbnailer serve`'s tiers and formats: WebP asked or negotiated, the disk
/// tier's bytes sent as stored after a restart, the origin's Last-Modified
/// passed on, and one render shared by a hundred requests.
extension ServeCommandTests {
    @Test func sendsWebPWhenAskedOrAcceptedAndSaysWhenItVaries() async throws {
        let server = try await startServer()
        let webp = try await server.get(path("/portrait.jpg", format: .webp))
        #expect(webp.status == 200)
        #expect(webp.headers["content-type"] == "image/webp")
        #expect(webp.headers["vary"] == nil)
        let decoded = try await ThumbnailDecoder(size: .original).decode(webp.body)
        #expect((decoded.width, decoded.height) == (170, 256))

        let negotiated = try await server.get(path("/portrait.jpg"), headers: ["Accept": "image/avif,image/webp,*/*;q=0.8"])
        #expect(negotiated.headers["content-type"] == "image/webp")
        #expect(negotiated.headers["vary"] == "Accept")
        #expect(negotiated.digest == webp.digest)
        #expect(negotiated.headers["x-thumbnail-tier"] == "memory")

        for accept in ["image/webp;q=0, */*", "*/*", nil] {
            let plain = try await server.get(path("/portrait.jpg"), headers: accept.map { ["Accept": $0] } ?? [:])
            #expect(plain.headers["content-type"] == "image/jpeg", "\(accept ?? "no Accept")")
            #expect(plain.headers["vary"] == "Accept")
        }
        #expect(try await server.stop().status == 0)
    }

    @Test func answersFromDiskAfterARestartWithTheSameBytesAndLastModified() async throws {
        let modified = "Wed, 21 Oct 2015 07:28:00 GMT"
        origin.route("/dated.jpg", .init(body: try Fixtures.bytes(ofTestImage: Self.portrait), headers: ["Last-Modified": modified]))
        let first = try await startServer()
        let rendered = try await first.get(path("/dated.jpg"))
        #expect(rendered.status == 200)
        #expect(rendered.headers["x-thumbnail-tier"] == "render")
        #expect(rendered.headers["last-modified"] == modified)
        #expect(try await first.stop().status == 0)

        let second = try await startServer()
        let stored = try await second.get(path("/dated.jpg"))
        #expect(stored.headers["x-thumbnail-tier"] == "disk")
        #expect(stored.digest == rendered.digest)
        #expect(stored.headers["etag"] == rendered.headers["etag"])
        #expect(stored.headers["last-modified"] == modified)
        let again = try await second.get(path("/dated.jpg"))
        #expect(again.headers["x-thumbnail-tier"] == "memory")
        #expect(again.digest == rendered.digest)
        #expect(origin.requestCount("/dated.jpg") == 1)
        #expect(try await second.stop().status == 0)
    }

    @Test func aSourceOutsideTheAllowListIsRefusedBeforeAnyFetch() async throws {
        let narrow = try await startServer(["--private-addresses", "--allow-source", "images.example.org",
                                            "--allow-source", "*.example.com"])
        let refused = try await narrow.get(path("/portrait.jpg"))
        #expect(refused.status == 403)
        #expect(String(decoding: refused.body, as: UTF8.self) == "source refused\n")
        #expect(origin.requestCount("/portrait.jpg") == 0)
        #expect(try await narrow.stop().status == 0)

        let open = try await startServer(["--private-addresses", "--allow-source", "*"])
        #expect(try await open.get(path("/portrait.jpg")).status == 200)
        #expect(try await open.stop().status == 0)
    }

    @Test func anOriginFailureIs502AndASourceOverTheCapIs413() async throws {
        origin.route("/broken.jpg", .init(status: 500, body: Array("internal details".utf8)))
        let server = try await startServer(["--private-addresses", "--retries", "1", "--max-download-bytes", "100K"])
        let broken = try await server.get(path("/broken.jpg"))
        #expect(broken.status == 502)
        #expect(String(decoding: broken.body, as: UTF8.self) == "source could not be fetched\n")
        let large = try await server.get(path("/portrait.jpg"))  // 232 KB
        #expect(large.status == 413)
        #expect(String(decoding: large.body, as: UTF8.self) == "source too large\n")
        #expect(try await server.stop().status == 0)
    }

    /// One render slot and no queue: a request that did not join the first one's render would be refused.
    @Test func aHundredRequestsForOneColdThumbnailShareOneRender() async throws {
        let gate = ResponseGate()
        var held = TestHTTPServer.Behavior(body: try Fixtures.bytes(ofTestImage: Self.portrait))
        held.holdAfter = (bytes: 1000, gate: gate)
        origin.route("/popular.jpg", held)
        let server = try await startServer(["--private-addresses", "--max-renders", "1", "--max-queue", "0"])
        let wanted = path("/popular.jpg")
        let responses = try await withThrowingTaskGroup(of: TestHTTPClient.Response.self) { group in
            for _ in 0..<100 { group.addTask { try await server.get(wanted) } }
            _ = try await eventually { origin.heldResponses == 1 }
            gate.open()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(responses.count == 100)
        #expect(responses.allSatisfy { $0.status == 200 })
        #expect(Set(responses.map(\.digest)).count == 1)
        #expect(origin.requestCount("/popular.jpg") == 1)
        let metrics = String(decoding: try await server.get("/metrics").body, as: UTF8.self)
        #expect(metrics.contains("\nthumbnailer_renders_total 1\n"), "\(metrics)")
        #expect(try await server.stop().status == 0)
    }
}

extension TestHTTPClient.Response {
    /// The body's SHA-256 in hex: what a test compares, so a failure prints 64 characters, not the bytes.
    var digest: String { SHA256.hex(SHA256.digest(body)) }
}
