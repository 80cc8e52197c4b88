import Foundation
import TestSupport
import Testing
import ThumbnailHTTP
import ThumbnailKit

/// `thumbnailer warm` end to end: the built binary against feeds served by the
/// loopback server, with request counts observed at the server.
@Suite final class WarmCommandTests: Sendable {
    let server: TestHTTPServer
    let temporary: TemporaryDirectory
    var cacheDirectory: String { temporary.path("cache") }

    /// The images the feeds list, served at /images/<name>.
    static let images = [
        "photo-aitzgorri-baseline-3000x1998.jpg", "photo-friends-portrait-1000x1502.jpg",
        "photo-life-adam7-rgb-640x480.png", "photo-picosdeeuropa-progressive-2048x1536.jpg",
        "photo-sunset-rgba-vignette-1024x683.png", "jpeg-baseline-420-gradient-256x192.jpg",
        "webp-lossy-alpha-vignette-256x192.webp", "gif-palette-interlaced-67x43.gif",
    ]

    init() throws {
        server = try TestHTTPServer()
        temporary = try TemporaryDirectory()
    }

    deinit { server.stop() }

    /// Serves every image at /images/<name> with `adjust` applied.
    func serveImages(_ adjust: (inout TestHTTPServer.Behavior) -> Void = { _ in }) throws {
        for name in Self.images {
            var behavior = TestHTTPServer.Behavior(body: try Fixtures.bytes(ofTestImage: name))
            adjust(&behavior)
            server.route("/images/\(name)", behavior)
        }
    }

    /// A JSON Feed with relative image URLs (resolved against /feeds/).
    func serveJSONFeed(at path: String = "/feeds/feed.json", names: [String] = images) {
        let items = names.enumerated().map { index, name in
            #"{"id": "\#(index)", "title": "Item \#(index)", "image": "../images/\#(name)"}"#
        }
        let feed = #"{"version": "https://jsonfeed.org/version/1.1", "title": "Test", "items": [\#(items.joined(separator: ","))]}"#
        server.route(path, .init(body: Array(feed.utf8)))
    }

    func serveRSSFeed(at path: String) {
        let items = Self.images.map { name in
            "<item><title>\(name)</title><enclosure url=\"\(server.url("/images/\(name)"))\" type=\"image/jpeg\" length=\"1\"/></item>"
        }
        let feed = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Test</title>\(items.joined())</channel></rss>"
        server.route(path, .init(body: Array(feed.utf8)))
    }

    func servePlainJSONFeed(at path: String) {
        let objects = Self.images.map { #"{"name": "\#($0)", "imageUrl": "/images/\#($0)"}"# }
        server.route(path, .init(body: Array(#"{"results": [\#(objects.joined(separator: ","))]}"#.utf8)))
    }

    /// Runs `thumbnailer warm`.
    func warm(_ feedPath: String, _ options: [String] = []) async throws -> (status: Int32, summary: [String: Any], stderr: String) {
        let arguments = ["warm", feedPath.hasPrefix("/") ? server.url(feedPath) : feedPath,
                         "--cache-dir", cacheDirectory, "--json"] + options
        let run = try await runBlocking { try ChildProcess.run(arguments) }
        let summary = (try? JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8))) as? [String: Any] ?? [:]
        return (run.status, summary, run.standardError)
    }

    func imageRequests() -> [Int] {
        Self.images.map { server.requestCount("/images/\($0)") }
    }

    func cacheStatistics() throws -> DiskCache.Statistics {
        try DiskCache(directory: cacheDirectory).statistics()
    }

    @Test(arguments: ["json", "rss", "plain"])
    func theFirstRunCachesEveryImageAndTheSecondDownloadsNothing(format: String) async throws {
        try serveImages()
        let path = "/feeds/feed.\(format)"
        switch format {
        case "rss": serveRSSFeed(at: path)
        case "plain": servePlainJSONFeed(at: path)
        default: serveJSONFeed(at: path)
        }

        let first = try await warm(path, ["-s", "256", "-s", "128"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.summary["images"] as? Int == Self.images.count)
        #expect(first.summary["fetched"] as? Int == Self.images.count)
        #expect(first.summary["failed"] as? Int == 0)
        #expect(first.summary["thumbnailsWritten"] as? Int == 2 * Self.images.count)
        #expect(imageRequests() == Array(repeating: 1, count: Self.images.count), "one GET per image")
        let statistics = try cacheStatistics()
        #expect(statistics.entries[.originals] == Self.images.count)
        #expect(statistics.entries[.thumbnails] == 2 * Self.images.count)

        let second = try await warm(path, ["-s", "256", "-s", "128"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.summary["fetched"] as? Int == 0)
        #expect(second.summary["alreadyCached"] as? Int == Self.images.count)
        #expect(second.summary["thumbnailsWritten"] as? Int == 0)
        #expect(imageRequests() == Array(repeating: 1, count: Self.images.count), "no image GET the second time")
        #expect(server.requestCount(path) == 2)
    }

    @Test func aFillSizeIsWarmedAndAPipelineFindsItOnDiskFillingItsBox() async throws {
        try serveImages()
        serveJSONFeed()
        let fill = ThumbnailSize.fill(width: 101, height: 57)
        let run = try await warm("/feeds/feed.json", ["-s", "fill:101x57", "-s", "101x57"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.summary["thumbnailsWritten"] as? Int == 2 * Self.images.count)

        let pipeline = ThumbnailPipeline(configuration: .init(dataLoader: try HTTPDataLoader(),
                                                              diskCache: try DiskCache(directory: cacheDirectory)))
        for name in Self.images {
            let read = try await pipeline.thumbnail(for: ThumbnailRequest(url: server.url("/images/\(name)"), size: fill))
            let expected = fill.fitting(width: read.source.orientedWidth, height: read.source.orientedHeight)
            #expect((read.width, read.height) == expected, "\(name)")
            // Every source but the 67×43 GIF covers the box: exactly 101×57.
            #expect(name.hasSuffix("67x43.gif") || (read.width, read.height) == (101, 57), "\(name)")
        }
        #expect(pipeline.statistics.thumbnailDiskHits == Self.images.count)
        #expect(pipeline.statistics.decodes == 0 && pipeline.statistics.downloads == 0)
    }

    @Test func aMissingAndACorruptImageFailTheRunAndTheRestIsCached() async throws {
        try serveImages()
        var corrupt = try Fixtures.bytes(ofTestImage: Self.images[0])
        corrupt.removeLast(corrupt.count / 2)
        server.route("/images/cut.jpg", .init(body: corrupt))
        serveJSONFeed(at: "/feed.json", names: Self.images + ["missing.jpg", "cut.jpg"])

        let run = try await warm("/feed.json")
        #expect(run.status == 1)
        let failures = try #require(run.summary["failures"] as? [[String: String]])
        #expect(failures.count == 2)
        #expect(failures.contains { $0["url"] == server.url("/images/missing.jpg") && $0["reason"]?.contains("HTTP 404") == true })
        #expect(failures.contains { $0["url"] == server.url("/images/cut.jpg") && $0["reason"]?.contains("truncated") == true })
        #expect(run.summary["fetched"] as? Int == Self.images.count)
        #expect(try cacheStatistics().entries[.originals] == Self.images.count, "nothing stored for the broken two")
        #expect(server.requestCount("/images/missing.jpg") == 1, "a 404 is not retried")
        #expect(run.summary["failedTransiently"] as? Int == 0, "a 404 and a corrupt image stay so: exit 1, not 75")
    }

    /// A run whose origin answers 503 past the retries exits 75 (EX_TEMPFAIL, what Slurm's
    /// `RequeueExit` and a Kubernetes Job's `podFailurePolicy` act on), and the run again does only that image.
    @Test func anOriginAnswering503ExitsSeventyFiveAndTheRunAgainFetchesOnlyThatImage() async throws {
        try serveImages()
        let unavailable = TestHTTPServer.Behavior(status: 503, body: Array("busy".utf8))
        // Three answers of 503 (the three attempts of the first run), then the image.
        server.route("/images/busy.png", unavailable, unavailable, unavailable, .init(body: try NumberedImage.png(1)))
        serveJSONFeed(at: "/feed.json", names: Self.images + ["busy.png"])

        let first = try await warm("/feed.json")
        #expect(first.status == 75, "\(first.summary) \(first.stderr)")
        #expect(first.summary["failed"] as? Int == 1 && first.summary["failedTransiently"] as? Int == 1, "\(first.summary)")
        #expect(server.requestCount("/images/busy.png") == 3)

        let again = try await warm("/feed.json")
        #expect(again.status == 0, "\(again.summary) \(again.stderr)")
        #expect(again.summary["fetched"] as? Int == 1 && again.summary["alreadyCached"] as? Int == Self.images.count, "\(again.summary)")
        #expect(server.requestCount("/images/busy.png") == 4)
    }

    @Test func refreshRevalidatesAndDownloadsOnlyWhatChanged() async throws {
        try serveImages { $0.etag = "\"v1\"" }
        serveJSONFeed(at: "/feed.json")
        #expect(try await warm("/feed.json").status == 0)

        let unchanged = try await warm("/feed.json", ["--refresh"])
        #expect(unchanged.status == 0, "\(unchanged.stderr)")
        #expect(unchanged.summary["notModified"] as? Int == Self.images.count)
        #expect(unchanged.summary["fetched"] as? Int == 0 && unchanged.summary["bytesDownloaded"] as? Int == 0)
        let conditional = server.receivedRequests.filter { $0.path.hasPrefix("/images/") && $0.headers["if-none-match"] == "\"v1\"" }
        #expect(conditional.count == Self.images.count)

        var changed = TestHTTPServer.Behavior(body: try Fixtures.bytes(ofTestImage: Self.images[2]))
        changed.etag = "\"v2\""
        server.route("/images/\(Self.images[2])", changed)
        let refreshed = try await warm("/feed.json", ["--refresh"])
        #expect(refreshed.status == 0, "\(refreshed.stderr)")
        #expect(refreshed.summary["fetched"] as? Int == 1 && refreshed.summary["notModified"] as? Int == Self.images.count - 1)
    }

    @Test func aMalformedJSONFeedExitsTwoSayingWhere() async throws {
        server.route("/feed.json", .init(body: Array("{\n  \"items\": [\n    {\"image\": \"a.jpg\",}\n".utf8)))
        let run = try await warm("/feed.json")
        #expect(run.status == 2)
        #expect(run.stderr.contains("line 3"), "\(run.stderr)")
    }

    @Test func aMalformedXMLFeedExitsTwoSayingWhere() async throws {
        server.route("/feed.rss", .init(body: Array("<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel>\n<item><title>a</titel></item>".utf8)))
        let run = try await warm("/feed.rss")
        #expect(run.status == 2)
        #expect(run.stderr.contains("line 3"), "\(run.stderr)")
    }

    @Test func aFeedThatCannotBeFetchedExitsTwo() async throws {
        let run = try await warm("/nowhere.json")
        #expect(run.status == 2)
        #expect(run.stderr.contains("HTTP 404"), "\(run.stderr)")
    }

    @Test func aWebFeedMayNotPointAtLocalFiles() async throws {
        try serveImages()
        let feed = #"{"version": "https://jsonfeed.org/version/1.1", "items": [{"id": "1", "image": "file:///etc/passwd"}, {"id": "2", "image": "/images/\#(Self.images[5])"}]}"#
        server.route("/feed.json", .init(body: Array(feed.utf8)))
        let run = try await warm("/feed.json")
        #expect(run.status == 1)
        let failures = try #require(run.summary["failures"] as? [[String: String]])
        #expect(failures.count == 1 && failures.first?["url"] == "file:///etc/passwd")
        #expect(failures.first?["reason"]?.hasPrefix("refused") == true)
        // The refused image is one of the images the run failed, not outside the count.
        #expect(run.summary["images"] as? Int == 2 && run.summary["feedImages"] as? Int == 2, "\(run.summary)")
        #expect(try cacheStatistics().entries[.originals] == 1, "only the web image was stored")
    }

    /// A URL of kilobytes is one line of the summary, cut with “…”, in text and in JSON.
    @Test func aLongURLIsShownCutInTheSummary() async throws {
        let path = "/images/" + String(repeating: "a", count: 10_000) + ".jpg"
        server.route("/feed.json", .init(body: Array(#"["\#(path)"]"#.utf8)))
        let arguments = ["warm", server.url("/feed.json"), "--cache-dir", cacheDirectory]
        let text = try await runBlocking { try ChildProcess.run(arguments) }
        #expect(text.status == 1)
        let failure = text.standardOutput.split(separator: "\n").first { $0.hasPrefix("  http") } ?? ""
        #expect(failure.hasSuffix("…: HTTP 404") && failure.count == 2 + 300 + ": HTTP 404".count, "\(failure.prefix(400))")
        let json = try await runBlocking { try ChildProcess.run(arguments + ["--json"]) }
        let url = (json.jsonObject["failures"] as? [[String: String]])?.first?["url"] ?? ""
        #expect(url.count == 300 && url.hasPrefix(server.url("/images/aaa")) && url.hasSuffix("…"), "\(url.prefix(400))")
    }

    @Test func aDiskLimitSmallerThanTheFeedHoldsAndTheSummarySaysWhatWasEvicted() async throws {
        try serveImages()
        serveJSONFeed(at: "/feed.json")
        let limit = 1_500_000  // the six originals are about 3.4 MB
        let run = try await warm("/feed.json", ["--disk-limit", "\(limit)"])
        #expect(run.status == 1, "images it cached were evicted: \(run.stderr)")
        #expect(try cacheStatistics().totalBytes <= limit)
        #expect((run.summary["evictedEntries"] as? Int ?? 0) > 0)
        #expect((run.summary["evictedImages"] as? Int ?? 0) > 0)
        #expect((run.summary["cacheBytes"] as? Int ?? .max) <= limit)
    }

    @Test func aLocalFeedOfLocalFilesIsWarmedWithoutANetwork() async throws {
        let run = try await warm("file://" + Fixtures.testImage("feed.json"), ["-s", "64"])
        let items = try JSONSerialization.jsonObject(with: Data(try Fixtures.bytes(ofTestImage: "feed.json"))) as? [String: Any]
        let count = (items?["items"] as? [Any])?.count ?? -1
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.summary["images"] as? Int == count && run.summary["fetched"] as? Int == count)
    }

    @Test func imagesGoThroughTheProxyThatHTTPProxyNames() async throws {
        // The loopback server plays the proxy: it is asked for absolute URLs of a host that does not exist.
        let name = Self.images[5]
        let image = "http://images.invalid/photos/\(name)"
        server.route(image, .init(body: try Fixtures.bytes(ofTestImage: name)))
        let feed = temporary.path("feed.json")
        let document = #"{"version": "https://jsonfeed.org/version/1.1", "title": "Proxied", "items": [{"id": "1", "image": "\#(image)"}]}"#
        try Data(document.utf8).write(to: URL(fileURLWithPath: feed))
        let run = try await runBlocking {
            try ChildProcess.run(["warm", feed, "--cache-dir", self.cacheDirectory, "--json"],
                                 environment: ["http_proxy": "http://127.0.0.1:\(self.server.port)", "no_proxy": ""])
        }
        #expect(run.status == 0, "\(run.standardOutput) \(run.standardError)")
        #expect(server.requestCount(image) == 1)
        #expect(try DiskCache(directory: cacheDirectory).containsEntry(forKey: image, in: .originals))
    }

    /// A disk that refuses a write is a failure of the images it refused, never a success
    /// (before the originals streamed to disk, this run exited 0 with their originals silently
    /// not stored, and a later run "made them from stored originals").
    @Test func aFileSizeLimitFailsTheImagesItStopsByNameAndExitsOne() async throws {
        try serveImages()
        serveJSONFeed()
        // The gradients are a few kB; every photo is over 200 KiB.
        let small = try Self.images.filter { try Fixtures.bytes(ofTestImage: $0).count < 50_000 }
        #expect(small.count == 3)
        let arguments = ["-c", "ulimit -f 200 && exec \"$0\" \"$@\"", ChildProcess.thumbnailer, "warm",
                         server.url("/feeds/feed.json"), "--cache-dir", cacheDirectory, "--json"]
        let run = try await runBlocking { try ChildProcess.run(arguments, executable: "/bin/sh") }
        #expect(run.status == 1, "\(run.standardOutput) \(run.standardError)")
        let summary = (try? JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8))) as? [String: Any] ?? [:]
        let failures = try #require(summary["failures"] as? [[String: String]])
        let failed = Set(failures.compactMap { $0["url"] })
        #expect(failed == Set(Self.images.filter { !small.contains($0) }.map { server.url("/images/\($0)") }))
        #expect(failures.allSatisfy { $0["reason"]?.contains("File too large") == true }, "\(failures)")
        let cache = try DiskCache(directory: cacheDirectory)
        #expect(small.allSatisfy { cache.containsEntry(forKey: server.url("/images/\($0)"), in: .originals) })
        #expect(try cache.statistics().entries[.originals] == small.count)
        #expect(try cache.verify(repair: false).damaged.isEmpty)
    }
}
