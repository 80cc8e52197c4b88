import ArgumentParser
import CommandLineSupport
import Logging
import ThumbnailFeeds
import ThumbnailHTTP
import ThumbnailKit
import ThumbnailTerminal

/// `thumbnailer browse <feed>`: the feed as a full-screen scrolling list in
/// the terminal, each row's thumbnail drawn in true-colour half blocks.
struct BrowseCommand: AsyncParsableCommand, TunesAllocator {
    static let configuration = CommandConfiguration(
        commandName: "browse",
        abstract: "Browse a feed's images in the terminal.",
        discussion: """
            Keys: j/k or arrows (a row), PgUp/PgDn/space (a page), g/G (top/bottom), r (retry the \
            selected row), q or Ctrl-C (quit). Needs a terminal; 24-bit colour when COLORTERM says \
            truecolor, else 256 colours.
            """)

    @OptionGroup var source: FeedOptions

    static let workload = ProcessMemory.Workload.longLived

    @Option(help: "The memory cache's budget for decoded thumbnails, e.g. 32M.")
    var memoryBudget = ByteCount(bytes: 32 << 20)

    @Option(help: "Text lines per row (the thumbnail is one line less), at least 3.")
    var rowHeight = 7

    func validate() throws {
        guard rowHeight >= 3 else { throw ValidationError("--row-height must be at least 3") }
    }

    func run() async throws {
        let session: TerminalSession
        do {
            session = try await MainActor.run { try TerminalSession() }
        } catch {
            throw CommandFailure("\(error)", exitCode: 1)
        }
        let cache = try source.cache.open()
        let feed = try await source.loadFeed()
        let loader = try source.makeImageLoader()
        let items = feed.items.map { item in
            ListBrowser.Item(title: item.title ?? Self.fileName(of: item.imageURLs[0]), imageURL: item.imageURLs[0])
        }
        let pipeline = ThumbnailPipeline(configuration: .init(
            dataLoader: loader, diskCache: cache, memoryCostLimit: memoryBudget.bytes,
            retryPolicy: source.retryPolicy, maximumDownloadBytes: source.maxDownloadBytes.bytes, logger: .init(label: "browse") { _ in SwiftLogNoOpLogHandler() }))
        await BrowserLoop(session: session, items: items, pipeline: pipeline, rowHeight: rowHeight).run()
    }

    /// The last path component, percent-escapes and all: a title for an untitled item.
    private static func fileName(of url: String) -> String {
        String(url.split(separator: "/").last ?? Substring(url))
    }
}
