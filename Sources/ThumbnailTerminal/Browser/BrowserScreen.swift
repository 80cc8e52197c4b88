import ThumbnailKit

/// The whole `browse` screen, without the terminal: the feed while it loads
/// (a spinner, the retries' messages), its failure (the reason, `r` to load
/// it again), then its ``ListBrowser``. Keys in, frames out, like the list.
///
/// The screen opens before the feed arrives. The feed is any ``Loadable`` of
/// the list's items, so the front end decides how it is fetched and retried
/// (`browse` wraps one attempt per load in a ``RetryableLoader``).
@MainActor package final class BrowserScreen {
    /// The feed's items, loading, loaded or failed.
    package let feed: any Loadable<any BrowserItems>
    /// Shown while the feed loads and when it fails: where it comes from.
    package let feedName: String
    package let colorMode: ColorMode
    /// How the list draws thumbnails.
    package private(set) var graphics: TerminalGraphics
    /// The list, once the feed has loaded.
    package private(set) var list: ListBrowser?
    private let pipeline: ThumbnailPipeline
    private var columns: Int
    private var rows: Int
    private let rowHeight: Int
    private var spinner = Spinner()
    private var feedLoad: Task<Void, Never>?
    private let observer = StateObserver()
    private let onStateChange: @MainActor () -> Void

    /// - Parameters:
    ///   - feed: loads the items; ``loadFeed()`` starts it.
    ///   - onStateChange: called whenever the feed or a row on screen changes
    ///     state, so the front end draws a frame.
    package init(feed: any Loadable<any BrowserItems>, feedName: String, pipeline: ThumbnailPipeline,
                columns: Int, rows: Int, rowHeight: Int, colorMode: ColorMode, graphics: TerminalGraphics = .halfBlocks,
                onStateChange: @escaping @MainActor () -> Void = {}) {
        self.feed = feed
        self.graphics = graphics
        self.feedName = feedName
        self.pipeline = pipeline
        self.columns = columns
        self.rows = rows
        self.rowHeight = rowHeight
        self.colorMode = colorMode
        self.onStateChange = onStateChange
        observer.observe(feed, states: { feed.state }) { [weak self] _ in self?.feedChanged() }
    }

    /// A screen that goes away stops loading its feed.
    isolated deinit {
        feed.cancel()
    }

    /// Starts loading the feed, unless it is loading or loaded; the list
    /// appears when it has loaded.
    package func loadFeed() {
        feedLoad = Task { [weak self, feed] in
            await feed.load()
            self?.showListIfLoaded()
        }
    }

    /// Returns when the feed load started last has finished. Tests await this instead of hooks.
    package func waitForFeed() async {
        await feedLoad?.value
    }

    /// Applies `key`; `false` when it asks to quit. Before the list exists,
    /// only quitting and `r` do anything: `r` loads the feed again after a
    /// failure (and, by the ``Loadable`` rules, starts nothing while it loads).
    package func handle(_ key: Key) -> Bool {
        if let list { return list.handle(key) }
        switch key {
        case .quit:
            return false
        case .retry:
            loadFeed()
        default:
            break
        }
        return true
    }

    /// The terminal is now this size.
    package func resize(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
        list?.resize(columns: columns, rows: rows)
    }

    /// Draws thumbnails as `graphics` says from now on (``ListBrowser/change(graphics:)``).
    package func change(graphics: TerminalGraphics) {
        self.graphics = graphics
        list?.change(graphics: graphics)
    }

    /// Advances the spinners.
    package func tick() {
        spinner.advance()
        list?.tick()
    }

    /// Everything on screen now; `residentBytes` is shown in the list's status line.
    package func frame(residentBytes: Int) -> ScreenBuffer {
        var screen = ScreenBuffer(columns: max(1, columns), rows: max(2, rows))
        let statusRow = screen.rows - 1
        // Loaded, the list takes the whole screen, status line included.
        let view = LoadingView<any BrowserItems>(spinner: spinner) { [list] _, _, screen in
            list?.draw(on: &screen, residentBytes: residentBytes)
        }
        .progressView { [feedName] progress, spinner, region, screen in
            screen.put("Loading \(feedName)", line: 0, of: region, foreground: nil, bold: true)
            LoadingView<any BrowserItems>.defaultProgressView(progress, spinner: spinner,
                                                                in: region.inset(rows: 2), on: &screen)
            screen.putStatusLine(" \(feedName) · q quit", row: statusRow)
        }
        .errorView { [feedName] error, region, screen in
            screen.put("Cannot load \(feedName)", line: 0, of: region, foreground: nil, bold: true)
            LoadingView<any BrowserItems>.defaultErrorView(retryHint: "r: retry")(error, region.inset(rows: 2), &screen)
            screen.putStatusLine(" \(feedName) · r retry · q quit", row: statusRow)
        }
        let margin = ScreenRegion(column: 0, row: 0, columns: screen.columns, rows: statusRow).inset(columns: 2, rows: 1)
        view.draw(feed, in: margin, on: &screen)
        return screen
    }

    /// Shows the feed's new state: the list once it has loaded, and a frame.
    private func feedChanged() {
        showListIfLoaded()
        onStateChange()
    }

    /// Makes the list, once, when the feed has loaded.
    private func showListIfLoaded() {
        guard list == nil, let items = feed.currentState.value else { return }
        list = ListBrowser(items: items, pipeline: pipeline, columns: columns, rows: rows, rowHeight: rowHeight,
                           colorMode: colorMode, graphics: graphics, onStateChange: onStateChange)
    }
}
