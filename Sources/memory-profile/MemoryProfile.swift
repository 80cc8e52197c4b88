import ArgumentParser
import CommandLineSupport
import ThumbnailBenchmarking
import ThumbnailFeeds
import ThumbnailHTTP
import ThumbnailKit

/// One run of the memory benchmark (scripts/memprofile.sh): a scripted
/// scroll through a feed's list under one strategy, in a process of its own
/// so that its RSS is its own. Prints one JSON object with what it saw.
@main
struct MemoryProfile: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memory-profile",
        abstract: "Scroll through a feed's list under one memory strategy and report what it cost.")

    @Option(help: "The feed (JSON Feed, RSS, Atom or plain JSON).")
    var feed: String

    @Option(help: "naive, window or thumbnailer.")
    var strategy: ProfileStrategy

    @Option(help: "The thumbnailer strategy's memory cache budget in MiB.")
    var budgetMib = 32

    @Option(help: "Rows released outside the visible ones ± this many (window strategy).")
    var windowMargin = 20

    @Option(help: "Scroll speed.")
    var rowsPerSecond = 4.0

    @Option(help: "Rows on screen at once.")
    var visibleRows = 10

    @Option(help: "Disk cache directory (window and thumbnailer strategies); start it empty.")
    var cacheDir: String

    @Option(help: "The thumbnail box of the thumbnailer strategy, in pixels.")
    var size = 256

    @Option(help: "The images the feed repeats, in order: row n shows image n mod their count (to check identity).")
    var photos: [String] = []

    func run() async throws {
        ProcessMemory.tuneAllocator(for: .longLived)  // as thumbnailer browse does, for every strategy alike
        let items = try await Self.items(of: feed)
        let profile = ScrollProfile(strategy: strategy, budget: budgetMib << 20, windowMargin: windowMargin,
                                    cacheDirectory: cacheDir, thumbnailSize: size)
        // What each photo looks like at the size the strategy shows it, to check that a row shows its own.
        let references = try photos.map { try ImageFingerprint(ThumbnailDecoder(size: profile.size).decode(contentsOfFile: $0)) }
        let script = ScrollScript(visibleRows: visibleRows, prefetchDistance: visibleRows,
                                  rowsPerSecond: rowsPerSecond, returnsToTop: true)
        let line = try await profile.run(imageURLs: items.map { $0.imageURLs[0] }, script: script, references: references)
        print(line.text)
    }

    /// The feed's items, fetched by a loader of their own that is gone before the scroll
    /// starts: the pipeline downloads the images through its own.
    private static func items(of feed: String) async throws -> [FeedItem] {
        let loader = SchemeRoutingDataLoader(network: try HTTPDataLoader())
        return try FeedParser().parse(try await loader.loadBytes(DataRequest(url: feed)), source: feed).items
    }
}

/// How a list keeps its images.
enum ProfileStrategy: String, ExpressibleByArgument, CaseIterable {
    /// Decode at full size, keep every bitmap (an app without care).
    case naive
    /// Decode at full size, release the bitmaps of rows outside the visible ones ± a margin (the usual workaround).
    case window
    /// Downscale while decoding, keep thumbnails within a byte budget, originals and thumbnails on disk.
    case thumbnailer
}
