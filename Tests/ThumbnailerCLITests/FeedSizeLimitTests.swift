import Foundation
import TestSupport
import Testing

/// `--max-feed-bytes`: a feed larger than the limit is refused as its bytes arrive, from the web or a
/// file, with exit status 2 and a message naming the limit.
///
/// A feed within the limit, made of millions of tiny items or nested millions deep, is read in the memory
/// of one item (the feed on disk, its images streamed to the warm queue), and what cannot be bounded is
/// refused by naming the limit: each such run's whole-process peak is held to 64 MiB.
@Suite final class FeedSizeLimitTests: Sendable {
    let server: TestHTTPServer
    let temporary: TemporaryDirectory

    init() throws {
        server = try TestHTTPServer()
        temporary = try TemporaryDirectory()
    }

    deinit { server.stop() }

    static let refusal = "it is larger than the limit of 1.0 MiB (1048576 bytes); raise --max-feed-bytes to read it"

    static let peakLimit = 64 << 20

    /// Runs `thumbnailer warm` on `feed` with a 1 MiB feed limit.
    func warm(_ feed: String, _ options: [String] = ["--max-feed-bytes", "1M"],
              within duration: Duration = .seconds(20)) async throws -> ChildProcess.Outcome {
        let arguments = ["warm", feed, "--cache-dir", temporary.path("cache"), "--json"] + options
        return try await runBlocking { try ChildProcess.run(arguments, limits: .init(duration: duration)) }
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

    /// A plain JSON array of `count` distinct relative URLs of at most 4 characters (base 62): 4.4 M of
    /// them make 30 MB, under the default --max-feed-bytes of 32 MiB.
    static func tinyItemsFeed(of count: Int) -> [UInt8] {
        let digits = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        var document: [UInt8] = [UInt8(ascii: "[")]
        document.reserveCapacity(count * 7 + 2)
        for index in 0..<count {
            if index > 0 { document.append(UInt8(ascii: ",")) }
            document.append(UInt8(ascii: "\""))
            var value = index
            repeat {
                document.append(digits[value % 62])
                value /= 62
            } while value > 0
            document.append(UInt8(ascii: "\""))
        }
        document.append(UInt8(ascii: "]"))
        return document
    }

    @Test func aFeedOfMillionsOfTinyItemsIsShardedInBoundedMemory() async throws {
        let count = 4_400_000
        server.route("/feed.json", .init(body: try await runBlocking { Self.tinyItemsFeed(of: count) }))

        let run = try await warm(server.url("/feed.json"), ["--shard", "0/2000000"], within: .seconds(600))
        let summary = run.jsonObject
        #expect(summary["items"] as? Int == count, "\(run.standardError)")
        #expect(summary["feedImages"] as? Int == count)
        // The slice's few images are fetched, and answer 404.
        #expect(summary["failed"] as? Int == summary["images"] as? Int)
        #expect(run.peakResidentBytes <= Self.peakLimit, "peak RSS \(run.peakResidentBytes >> 20) MiB")
    }

    /// Every image failing is counted, however many: the summary lists the first 100 with their reasons.
    @Test func aLargeFeedWhoseEveryImageFailsCountsEachFailureInBoundedMemory() async throws {
        let count = 20_000
        server.route("/feed.json", .init(body: try await runBlocking { Self.tinyItemsFeed(of: count) }))

        let run = try await warm(server.url("/feed.json"), ["--retries", "1"], within: .seconds(600))
        let summary = run.jsonObject
        #expect(run.status == 1, "\(run.standardError)")
        #expect(summary["images"] as? Int == count && summary["failed"] as? Int == count, "\(summary)")
        let failures = summary["failures"] as? [[String: String]] ?? []
        #expect(failures.count == 100 && failures.allSatisfy { $0["reason"] == "HTTP 404" })
        #expect(run.peakResidentBytes <= Self.peakLimit, "peak RSS \(run.peakResidentBytes >> 20) MiB")
    }

    @Test func anXMLFeedNestedMillionsDeepIsRefusedAtTheDepthLimit() async throws {
        // 32 MB: 4 M elements, each inside the one before, never closed.
        let document = try await runBlocking {
            Array(#"<?xml version="1.0"?><rss version="2.0">"#.utf8)
                + Array(repeating: Array("<deeper>".utf8), count: 4_000_000).joined()
        }
        server.route("/feed.json", .init(body: document))

        let run = try await warm(server.url("/feed.json"), [])
        #expect(run.status == 2)
        #expect(run.standardError.contains("elements nest deeper than 512 levels, the most a feed may"), "\(run.standardError)")
        #expect(run.peakResidentBytes <= Self.peakLimit, "peak RSS \(run.peakResidentBytes >> 20) MiB")
    }
}
