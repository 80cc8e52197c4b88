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
            The screen opens at once and the feed loads inside it, tried up to --retries times; \
            when it fails, r loads it again. Keys: j/k or arrows (a row), PgUp/PgDn/space (a page), \
            g/G (top/bottom), r (retry the selected row, or the feed), q or Ctrl-C (quit). Needs a \
            terminal; 24-bit colour when COLORTERM says truecolor, else 256 colours. With --store, \
            thumbnails a fleet warmed into that object store are read from it: no original is fetched.
            """)

    @OptionGroup var source: FeedOptions

    @OptionGroup var store: StoreOptions

    static let workload = ProcessMemory.Workload.longLived

    @Option(help: "The memory cache's budget for decoded thumbnails, e.g. 32M (at least 1 byte; no unlimited).")
    var memoryBudget = ByteCount(bytes: 32 << 20)

    @Option(help: "Text lines per row (the thumbnail is one line less), at least 3.")
    var rowHeight = 7

    @Option(help: """
        How thumbnails are drawn: auto (ask the terminal: kitty graphics, else sixel, else half \
        blocks), kitty, sixel, iterm (iTerm2's inline images) or blocks. Inside tmux, through its \
        passthrough when the pane allows it (allow-passthrough on), else half blocks.
        """)
    var graphics = GraphicsProtocol.auto

    func validate() throws {
        guard rowHeight >= 3 else { throw ValidationError("--row-height must be at least 3") }
        try LimitOption.validate(memoryBudget.bytes, "--memory-budget", unit: "byte")
    }

    func run() async throws {
        // Before the screen opens: a store that cannot be used is said on a plain terminal.
        let objectStore = try await store.open()
        let session: TerminalSession
        do {
            session = try await MainActor.run { try TerminalSession() }
        } catch {
            throw CommandFailure("\(error)", exitCode: 1)
        }
        var wiring = PipelineWiring(source: source, diskCache: try source.cache.open(), store: store, objectStore: objectStore)
        wiring.memoryCostLimit = memoryBudget.bytes
        wiring.logger = Logger(label: "browse") { _ in SwiftLogNoOpLogHandler() }
        let pipeline = wiring.makePipeline()
        let feedSource = FeedSource(location: source.feed, imageKeyPath: source.imageKey,
                                    maximumBytes: source.maxFeedBytes.bytes)
        let feedLoader = try source.makeFeedLoader()
        let feed = await MainActor.run { [retryPolicy = source.transfer.retryPolicy] in
            Self.feedLoader(source: feedSource, loader: feedLoader, retryPolicy: retryPolicy)
        }
        let note = await BrowserLoop(session: session, feed: feed, feedName: source.feed, pipeline: pipeline,
                                     rowHeight: rowHeight, requestedGraphics: graphics).run()
        if let note { StandardError.print(note + "\n") }
    }

    /// The feed, loaded inside the screen: one fetch per attempt, `--retries`
    /// attempts with the usual backoff, each wait shown as "retrying in …".
    @MainActor private static func feedLoader(source: FeedSource, loader: any DataLoading,
                                              retryPolicy: RetryPolicy) -> RetryableLoader<FeedItemsLoader> {
        RetryableLoader(base: FeedItemsLoader(source: source, loader: loader), policy: retryPolicy)
    }
}
