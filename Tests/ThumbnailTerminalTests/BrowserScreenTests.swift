import Synchronization
import TestSupport
import Testing
import ThumbnailKit
import ThumbnailTerminal

/// The browse screen without a terminal: it opens before the feed arrives,
/// shows the feed loading and failing, retries it with `r`, then shows the
/// list; every state change asks for a frame.
@Suite @MainActor final class BrowserScreenTests {
    struct Unavailable: Error, CustomStringConvertible {
        var description: String { "cannot fetch the feed: HTTP 503" }
    }

    let temporary: TemporaryDirectory
    let items: [ListBrowser.Item]
    let recorder = FrameRecorder()
    /// Every frame drawn when the screen asked for one.
    var frames: [ScreenBuffer] { recorder.frames }

    init() throws {
        let temporary = try TemporaryDirectory()
        self.temporary = temporary
        items = try ListBrowser.Item.numbered(3, in: temporary)
    }

    func makeSUT(feed: any Loadable<any BrowserItems>) -> BrowserScreen {
        let pipeline = ThumbnailPipeline(configuration: .init(retryPolicy: .never))
        let screen = BrowserScreen(feed: feed, feedName: "feed.json", pipeline: pipeline, columns: 80, rows: 20,
                                   rowHeight: 5, colorMode: .trueColor) { [recorder] in recorder.record() }
        recorder.screen = screen
        return screen
    }

    /// The rows `list` shows, in order.
    static func rows(of list: ListBrowser) -> [ListBrowser.Item] {
        (0..<list.items.count).map { list.items[$0] }
    }

    /// Every line of `frame`, joined.
    func text(of frame: ScreenBuffer) -> String {
        (0..<frame.rows).map { frame.text(ofRow: $0) }.joined(separator: "\n")
    }

    /// A feed whose first `failures` loads fail.
    func feed(failingFirst failures: Int) -> BlockLoadable<any BrowserItems> {
        let attempts = Atomic(0)
        return BlockLoadable { [items] () async throws -> any BrowserItems in
            guard attempts.add(1, ordering: .relaxed).newValue > failures else { throw Unavailable() }
            return items
        }
    }

    @Test func theScreenOpensBeforeTheFeedArrivesAndShowsItLoading() async throws {
        let gate = AsyncStream.makeStream(of: Void.self)
        let feed = BlockLoadable { [items] () async -> any BrowserItems in
            for await _ in gate.stream { break }
            return items
        }
        let screen = makeSUT(feed: feed)
        screen.loadFeed()
        #expect(try await eventually(within: .seconds(10)) { feed.currentState.isLoading })
        let loading = text(of: screen.frame(residentBytes: 0))
        #expect(loading.contains("Loading feed.json") && loading.contains(Spinner.frames[0]), "\(loading)")
        #expect(loading.contains("q quit") && !loading.contains("r retry"))
        #expect(screen.list == nil)

        gate.continuation.yield()
        await screen.waitForFeed()
        let list = try #require(screen.list)
        #expect(Self.rows(of: list) == items)
        #expect(text(of: screen.frame(residentBytes: 0)).contains("item 2"))
    }

    @Test func aFailedFeedShowsTheReasonAndRLoadsItAgain() async throws {
        let screen = makeSUT(feed: feed(failingFirst: 1))
        screen.loadFeed()
        await screen.waitForFeed()
        let failed = text(of: screen.frame(residentBytes: 0))
        #expect(failed.contains("✗ r: retry · cannot fetch the feed: HTTP 503"), "\(failed)")
        #expect(failed.contains("r retry · q quit"))
        #expect(screen.list == nil)

        #expect(screen.handle(.down), "other keys wait for the list")
        #expect(screen.handle(.retry))
        await screen.waitForFeed()
        #expect(screen.list.map(Self.rows(of:)) == items)
        #expect(!screen.handle(.quit))
    }

    @Test func theRetriesOfARetryableFeedAreShownThenItsError() async throws {
        let policy = RetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(20), jitter: 0)
        let screen = makeSUT(feed: RetryableLoader(base: feed(failingFirst: 10), policy: policy))
        screen.loadFeed()
        await screen.waitForFeed()
        let shown = frames.map(text(of:))
        #expect(shown.contains { $0.contains("retrying in 0.0 s (attempt 2 of 3)") }, "\(shown)")
        #expect(shown.contains { $0.contains("retrying in 0.0 s (attempt 3 of 3)") })
        #expect(shown.last?.contains("✗ r: retry · cannot fetch the feed: HTTP 503") == true)
    }

    @Test func stateChangesOfTheFeedAndOfEveryRowAskForAFrame() async throws {
        let screen = makeSUT(feed: feed(failingFirst: 0))
        screen.loadFeed()
        await screen.waitForFeed()
        let list = try #require(screen.list)
        for (_, cell) in list.list.visibleCells { await cell.content(as: ThumbnailRowLoader.self)?.waitForLoadingToComplete() }
        // Without a frame asked for by the rows' own changes, the last frame would still show spinners.
        #expect(try await eventually(within: .seconds(10)) {
            guard let last = self.frames.last else { return false }
            return (0..<3).allSatisfy { row in
                last.cell(column: 1, row: list.layout.rowOrigin(index: row)).character == "▀"
            }
        }, "\(frames.last.map(text(of:)) ?? "no frame")")
    }
}

/// Draws a frame whenever the screen asks for one, as a front end would, and keeps them all.
@MainActor final class FrameRecorder {
    weak var screen: BrowserScreen?
    private(set) var frames: [ScreenBuffer] = []

    func record() {
        if let screen { frames.append(screen.frame(residentBytes: 0)) }
    }
}
