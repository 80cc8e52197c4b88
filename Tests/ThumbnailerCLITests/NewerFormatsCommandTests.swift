import Foundation
import TestSupport
import Testing
import ThumbnailKit
import ThumbnailServer

/// `warm`, `serve` and `browse` on AVIF, HEIC and JPEG XL photos from a loopback origin: each is
/// asked for with an `Accept` that names its type, fetched once, thumbnailed at its own size,
/// served as a thumbnail, and shown in the list.
@Suite final class NewerFormatsCommandTests: Sendable {
    static let photos = ["avif-photo-420-1024x683.avif", "heic-photo-1024x683.heic", "jxl-photo-lossy-1024x683.jxl"]
    static let mediaTypes = ["image/avif", "image/heic", "image/jxl"]
    let origin: TestHTTPServer
    let temporary: TemporaryDirectory

    init() throws {
        origin = try TestHTTPServer()
        temporary = try TemporaryDirectory()
        for photo in Self.photos {
            origin.route("/images/\(photo)", .init(body: try Fixtures.bytes(ofTestImage: photo)))
        }
        origin.route("/feed.json", .init(body: JSONFeed.listing(Self.photos.map { origin.url("/images/\($0)") })))
    }

    deinit { origin.stop() }

    private func warm() async throws -> [String: Any] {
        let arguments = ["warm", origin.url("/feed.json"), "--cache-dir", temporary.path("cache"), "--json"]
        let run = try await runBlocking { try ChildProcess.run(arguments) }
        #expect(run.status == 0, "\(run.standardError)")
        return (try? JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8))) as? [String: Any] ?? [:]
    }

    @Test func warmFetchesEachOnceAskingForItsTypeAndASecondRunDownloadsNothing() async throws {
        let first = try await warm()
        #expect(first["fetched"] as? Int == 3 && first["failed"] as? Int == 0, "\(first)")
        #expect(first["thumbnailsWritten"] as? Int == 3, "\(first)")
        let second = try await warm()
        #expect(second["fetched"] as? Int == 0 && second["alreadyCached"] as? Int == 3, "\(second)")

        for photo in Self.photos { #expect(origin.requestCount("/images/\(photo)") == 1, "\(photo)") }
        let accepts = origin.receivedRequests.filter { $0.path.hasPrefix("/images/") }
            .map { request in request.headers.first { $0.key.lowercased() == "accept" }?.value ?? "" }
        #expect(accepts.count == 3 && accepts.allSatisfy { accept in Self.mediaTypes.allSatisfy(accept.contains) },
                "\(accepts)")
    }

    @Test func serveRendersEachAsAThumbnailOfItsSize() async throws {
        let server = try await ServeProcess.start(["--cache-dir", temporary.path("cache"), "--private-addresses"],
                                                  environment: ServeCommandTests.environment)
        for photo in Self.photos {
            let path = ThumbnailURL(size: .fit(256), mode: .fit, source: origin.url("/images/\(photo)"), format: nil)
                .path(signing: ServeCommandTests.signing)
            let response = try await server.get(path)
            #expect(response.status == 200, "\(photo)")
            #expect(response.headers["content-type"] == "image/jpeg", "\(photo)")
            let thumbnail = try await ThumbnailDecoder(size: .original).decode(response.body)
            #expect((thumbnail.width, thumbnail.height) == (256, 171), "\(photo)")
        }
        #expect(try await server.stop().status == 0)
    }

    @Test(.enabled(if: Tmux.isAvailable, "needs tmux"))
    func browseShowsEachWithItsSourceSize() async throws {
        let tmux = Tmux(socket: "thumbnailer-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        defer { tmux.killServer() }
        let command = "env COLORTERM=truecolor \(ChildProcess.thumbnailer) browse \(origin.url("/feed.json"))"
            + " --cache-dir \(temporary.path("cache")) --row-height 7; sleep 60"
        try tmux.start(command, columns: 120, rows: 40)

        for photo in Self.photos {
            #expect(try await eventually {
                tmux.capture(colours: true).split(separator: "\n").contains { $0.contains(photo) && $0.contains("\u{1B}[38;2;") }
            }, "\(photo) is not drawn: \(tmux.capture(colours: false))")
            #expect(BrowseFeedLoadingTests.caption(of: photo, on: tmux)?.contains("1024×683") == true,
                    "\(tmux.capture(colours: false))")
        }
    }
}
