import Foundation
import TestSupport
import Testing

/// `--max-feed-bytes`: a feed larger than the limit is refused as its bytes arrive, from the web or a
/// file, with exit status 2 and a message naming the limit.
@Suite final class FeedSizeLimitTests: Sendable {
    let server: TestHTTPServer
    let temporary: TemporaryDirectory

    init() throws {
        server = try TestHTTPServer()
        temporary = try TemporaryDirectory()
    }

    deinit { server.stop() }

    static let refusal = "it is larger than the limit of 1.0 MiB (1048576 bytes); raise --max-feed-bytes to read it"

    /// Runs `thumbnailer warm` on `feed` with a 1 MiB feed limit.
    func warm(_ feed: String, _ options: [String] = ["--max-feed-bytes", "1M"]) async throws -> ChildProcess.Outcome {
        let arguments = ["warm", feed, "--cache-dir", temporary.path("cache"), "--json"] + options
        return try await runBlocking { try ChildProcess.run(arguments, limits: .init(duration: .seconds(20))) }
    }

    func expectRefused(_ run: ChildProcess.Outcome, feed: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == 2, sourceLocation: sourceLocation)
        #expect(run.standardError.contains("cannot fetch the feed \(feed): \(Self.refusal)"), "\(run.standardError)",
                sourceLocation: sourceLocation)
    }

    @Test func anEndlessFeedIsCutAtTheLimitAsItArrives() async throws {
        server.route("/feed.json", .endless(.chunked))
        let feed = server.url("/feed.json")
        let run = try await warm(feed)

        expectRefused(run, feed: feed)
        let ended = try await eventually { self.server.bodiesBeingSent("/feed.json") == 0 }
        #expect(ended, "the server is still sending the feed")
        let sent = server.sentBodyBytes("/feed.json")
        #expect(sent < 4 << 20, "the client read on past its 1 MiB limit (the server sent \(sent) bytes)")
    }

    @Test func aFeedAnnouncingMoreThanTheLimitIsRefusedBeforeItsBody() async throws {
        server.route("/feed.json", .generated(length: 200_000_000))
        let feed = server.url("/feed.json")
        let run = try await warm(feed)

        expectRefused(run, feed: feed)
        let ended = try await eventually { self.server.bodiesBeingSent("/feed.json") == 0 }
        #expect(ended, "the server is still sending the feed")
        #expect(server.sentBodyBytes("/feed.json") <= 1 << 20)
    }

    /// 1.2 MB of JSON, mostly whitespace, naming one missing image.
    func writeLargeFeed() throws -> String {
        let feed = temporary.path("feed.json")
        let document = "[" + String(repeating: " ", count: 1_200_000) + #""missing.jpg"]"#
        try Data(document.utf8).write(to: URL(fileURLWithPath: feed))
        return feed
    }

    @Test func aFileFeedOverTheLimitIsRefused() async throws {
        let feed = try writeLargeFeed()
        expectRefused(try await warm(feed), feed: feed)
    }

    @Test func theDefaultLimitReadsAFeedOfMoreThanAMegabyte() async throws {
        let run = try await warm(try writeLargeFeed(), [])
        // Read and parsed: its one image is missing.
        #expect(run.status == 1, "\(run.standardError)")
        let summary = (try? JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8))) as? [String: Any]
        #expect(summary?["failed"] as? Int == 1, "\(run.standardOutput)")
    }
}
