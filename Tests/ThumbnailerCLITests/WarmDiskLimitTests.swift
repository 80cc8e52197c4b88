import Foundation
import TestSupport
import Testing

/// `thumbnailer warm` with a disk limit smaller than the feed: the built
/// binary against images served by the loopback server. An image the run
/// cached and then evicted itself to make room for a later one is not cached,
/// so the run says so and exits 1. (Before, it exited 0 with "failed 0", and a
/// rerun downloaded the evicted images again.)
@Suite final class WarmDiskLimitTests: Sendable {
    let server: TestHTTPServer
    let temporary: TemporaryDirectory
    var cacheDirectory: String { temporary.path("cache") }

    /// 965 kB: an entry of about 0.92 MiB, so a 4 MiB cache holds four originals.
    static let photo = "photo-aitzgorri-baseline-3000x1998.jpg"

    init() throws {
        server = try TestHTTPServer()
        temporary = try TemporaryDirectory()
    }

    deinit { server.stop() }

    /// A feed of `count` images, each the photo under a URL of its own, and
    /// the same feed in reverse order at `<path>/reversed`.
    func serveFeed(_ path: String, images count: Int) throws {
        let photo = try Fixtures.bytes(ofTestImage: Self.photo)
        let images = (0..<count).map { "\(path)/images/\($0).jpg" }
        for image in images { server.route(image, .init(body: photo)) }
        server.route(path, .init(body: JSONFeed.listing(images.map(server.url))))
        server.route("\(path)/reversed", .init(body: JSONFeed.listing(images.reversed().map(server.url))))
    }

    /// The number of images the summary says the run evicted, from its text.
    func evictedImages(_ run: ChildProcess.Outcome) throws -> Int {
        let pattern = /disk limit too small for this feed: (\d+) images evicted during the run/
        let match = try #require(run.standardOutput.firstMatch(of: pattern), "\(run.standardOutput)")
        return try #require(Int(match.1))
    }

    func warm(_ path: String, _ options: [String]) async throws -> ChildProcess.Outcome {
        let arguments = ["warm", server.url(path), "--cache-dir", cacheDirectory, "-s", "64"] + options
        return try await runBlocking { try ChildProcess.run(arguments) }
    }

    func json(_ run: ChildProcess.Outcome) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8))) as? [String: Any] ?? [:]
    }

    @Test func aFeedLargerThanTheDiskLimitExitsOneAndCountsTheImagesItEvicted() async throws {
        try serveFeed("/big", images: 20)

        let run = try await warm("/big", ["--disk-limit", "4M"])
        #expect(run.status == 1, "\(run.standardOutput) \(run.standardError)")
        let pattern = /disk limit too small for this feed: (\d+) images evicted during the run; need about ([\d.]+) MiB/
        let match = try #require(run.standardOutput.firstMatch(of: pattern), "\(run.standardOutput)")
        let evicted = try #require(Int(match.1))
        let needed = try #require(Double(match.2))
        #expect(needed > 18 && needed < 20, "20 originals of 0.92 MiB and their thumbnails: \(needed) MiB")
        #expect(run.standardOutput.contains("failed      0"), "no image failed on its own: \(run.standardOutput)")

        // The truth: with room, a rerun finds cached exactly the images not counted as evicted.
        let rerun = try await warm("/big", ["--disk-limit", "1G", "--json"])
        #expect(rerun.status == 0, "\(rerun.standardOutput) \(rerun.standardError)")
        let summary = json(rerun)
        #expect(summary["alreadyCached"] as? Int == 20 - evicted, "\(evicted) counted as evicted: \(summary)")
        #expect(evicted >= 15, "a 4 MiB cache keeps at most four of the 20 images: \(evicted)")
        #expect(summary["evictedImages"] as? Int == 0 && summary["diskLimitTooSmall"] == nil, "\(summary)")
    }

    /// A run that evicted images of its own exits 1 even when an image also failed transiently:
    /// a run again would meet the same disk limit, so 75 (run me again) would be a lie.
    @Test func aDiskLimitTooSmallWinsOverATransientFailure() async throws {
        try serveFeed("/big", images: 20)
        server.route("/big/images/3.jpg", .init(status: 503, body: Array("busy".utf8)))

        let run = try await warm("/big", ["--disk-limit", "4M", "--retries", "1", "--json"])
        #expect(run.status == 1, "\(run.standardOutput) \(run.standardError)")
        #expect(json(run)["failedTransiently"] as? Int == 1 && (json(run)["evictedImages"] as? Int ?? 0) > 0, "\(json(run))")
    }

    /// Images a run finds cached and then evicts count too: the second run
    /// (the feed reversed, so the images the first left come first) evicts
    /// them to make room for the rest.
    @Test func imagesFoundCachedAndThenEvictedCount() async throws {
        try serveFeed("/big", images: 20)
        #expect(try await warm("/big", ["--disk-limit", "4M"]).status == 1)

        let second = try await warm("/big/reversed", ["--disk-limit", "4M"])
        #expect(second.status == 1, "\(second.standardOutput) \(second.standardError)")
        let evicted = try evictedImages(second)
        #expect(second.standardOutput.contains("failed      0"), "\(second.standardOutput)")
        #expect(second.standardOutput.contains(/cached      [1-9]\d* already/), "some were found cached: \(second.standardOutput)")

        let rerun = try await warm("/big", ["--disk-limit", "1G", "--json"])
        #expect(json(rerun)["alreadyCached"] as? Int == 20 - evicted, "\(evicted) counted as evicted: \(json(rerun))")
    }

    @Test func aFeedThatFitsExitsZeroWithoutTheMessage() async throws {
        try serveFeed("/small", images: 3)

        let run = try await warm("/small", ["--disk-limit", "4M"])
        #expect(run.status == 0, "\(run.standardOutput) \(run.standardError)")
        #expect(!run.standardOutput.contains("too small"), "\(run.standardOutput)")

        let rerun = try await warm("/small", ["--disk-limit", "4M", "--json"])
        #expect(rerun.status == 0, "\(rerun.standardError)")
        #expect(json(rerun)["alreadyCached"] as? Int == 3 && json(rerun)["evictedImages"] as? Int == 0, "\(json(rerun))")
    }
}
