import ThumbnailKit

/// The terminal list of a feed, without the terminal: keys in, frames out.
///
/// It owns a ``ListController`` (a fixed pool of row objects, reused as the
/// window moves), a ``ListViewport`` (selection and scrolling) and a
/// ``BrowserLayout``. Each key moves the viewport, shows the visible rows and
/// prefetches the page after them; ``frame(residentBytes:)`` draws what every
/// row shows now, through a ``LoadingView`` of its loader's state: its
/// thumbnail in half-block cells, a spinner with the percent while it loads,
/// a retry mark with the reason when it failed. Every state change of a row
/// on screen calls `onStateChange`, so the front end knows to draw. It only
/// reads keys, writes frames and reports resizes.
@MainActor package final class ListBrowser {
    /// One row: what it is called and where its image is.
    package struct Item: Sendable, Hashable {
        package var title: String
        package var imageURL: String

        package init(title: String, imageURL: String) {
            self.title = title
            self.imageURL = imageURL
        }
    }

    /// The rows, read one at a time as they are shown or prefetched.
    package let items: any BrowserItems
    /// What the status line reports: the provider's memory, work in flight and disk hits.
    package let work: any ThumbnailWorkReporting
    package let colorMode: ColorMode
    /// How thumbnails are drawn: half blocks, or a graphics protocol at `cellSize` pixels a cell.
    package private(set) var graphics: TerminalGraphics
    package private(set) var layout: BrowserLayout
    package private(set) var viewport: ListViewport
    /// The rows and their reused cells.
    package private(set) var list: ListController
    private let provider: any ThumbnailProviding
    private let rowHeight: Int
    private var spinner = Spinner()
    private var drawn: [ObjectIdentifier: HalfBlockImage] = [:]
    private let observer = StateObserver()
    private let onStateChange: @MainActor () -> Void

    /// A browser whose rows load from `pipeline`, which the status line also reports on.
    package convenience init(items: any BrowserItems, pipeline: ThumbnailPipeline, columns: Int, rows: Int, rowHeight: Int,
                            colorMode: ColorMode, graphics: TerminalGraphics = .halfBlocks,
                            onStateChange: @escaping @MainActor () -> Void = {}) {
        self.init(items: items, provider: pipeline, work: pipeline, columns: columns, rows: rows,
                  rowHeight: rowHeight, colorMode: colorMode, graphics: graphics, onStateChange: onStateChange)
    }

    /// - Parameters:
    ///   - provider: where the rows' thumbnails come from.
    ///   - work: what the status line reports on (usually the provider).
    ///   - onStateChange: called whenever a row on screen changes state
    ///     (loading, progress, loaded, failed), so the front end draws a frame.
    package init(items: any BrowserItems, provider: any ThumbnailProviding, work: any ThumbnailWorkReporting,
                columns: Int, rows: Int, rowHeight: Int, colorMode: ColorMode, graphics: TerminalGraphics = .halfBlocks,
                onStateChange: @escaping @MainActor () -> Void = {}) {
        self.items = items
        self.work = work
        self.colorMode = colorMode
        self.graphics = graphics
        self.provider = provider
        self.rowHeight = rowHeight
        self.onStateChange = onStateChange
        let layout = BrowserLayout(columns: columns, rows: rows, rowHeight: rowHeight)
        self.layout = layout
        viewport = ListViewport(itemCount: items.count, visibleRows: layout.visibleRows)
        list = Self.makeList(items: items, graphics: graphics, layout: layout, rowHeight: rowHeight, provider: provider)
        showVisibleRows()
    }

    /// The rows, each asking for its thumbnail at the size it is drawn: the image area of a row, two
    /// pixels a cell in half blocks, the cells' own pixels with a graphics protocol.
    private static func makeList(items: any BrowserItems, graphics: TerminalGraphics, layout: BrowserLayout, rowHeight: Int,
                                 provider: any ThumbnailProviding) -> ListController {
        let size = graphics.thumbnailSize(columns: layout.thumbnailColumns, rows: rowHeight - 1)
        return ListController(rowCount: items.count) { index in
            let item = items[index]
            let row = ThumbnailRowController(request: ThumbnailRequest(url: item.imageURL, size: size),
                                             title: item.title, provider: provider)
            return RowController(row)
        }
    }

    /// Draws thumbnails as `graphics` says from now on: at a new cell size (the font changed), the
    /// rows ask for their thumbnails again at the new size; the window and the selection stay.
    package func change(graphics: TerminalGraphics) {
        guard graphics != self.graphics else { return }
        self.graphics = graphics
        list.display(rows: 0..<0)  // the old rows leave, and their work is cancelled
        list = Self.makeList(items: items, graphics: graphics, layout: layout, rowHeight: rowHeight, provider: provider)
        drawn = [:]
        showVisibleRows()
    }

    /// Applies `key`; `false` when it asks to quit.
    package func handle(_ key: Key) -> Bool {
        switch key {
        case .quit:
            return false
        case .retry:
            list.cell(forRow: viewport.selected)?.content(as: ThumbnailRowLoader.self)?.retry()
        default:
            viewport.apply(key)
            showVisibleRows()
        }
        return true
    }

    /// The terminal is now this size.
    package func resize(columns: Int, rows: Int) {
        layout = BrowserLayout(columns: columns, rows: rows, rowHeight: rowHeight)
        viewport.resize(visibleRows: layout.visibleRows)
        showVisibleRows()
    }

    /// Advances the spinner.
    package func tick() {
        spinner.advance()
    }

    private func showVisibleRows() {
        list.display(rows: viewport.visibleRange)
        list.prefetch(rows: viewport.prefetchRange(distance: layout.visibleRows))
        for (_, cell) in list.visibleCells {
            guard let loader = cell.content(as: ThumbnailRowLoader.self) else { continue }
            observer.observe(loader, states: { loader.state }) { [onStateChange] _ in onStateChange() }
        }
    }

    /// Everything on screen now; `residentBytes` is shown in the status line.
    package func frame(residentBytes: Int) -> ScreenBuffer {
        var screen = ScreenBuffer(columns: layout.columns, rows: layout.rows)
        draw(on: &screen, residentBytes: residentBytes)
        return screen
    }

    /// Draws the rows and the status line on `screen`, which has the layout's size.
    package func draw(on screen: inout ScreenBuffer, residentBytes: Int) {
        var kept: [ObjectIdentifier: HalfBlockImage] = [:]
        let thumbnailView = makeThumbnailView { kept[$0] = $1 }
        for (row, cell) in list.visibleCells {
            let origin = layout.rowOrigin(index: row - viewport.top)
            // The thumbnail box and the text beside it, below the title line.
            let region = ScreenRegion(column: 1, row: origin, columns: layout.columns - 1, rows: rowHeight - 1)
            if let state = cell.content(as: ThumbnailRowLoader.self)?.currentState {
                thumbnailView.draw(state, in: region, on: &screen)
            }
            let selected = row == viewport.selected
            screen.put(selected ? "›" : " ", column: 0, row: origin, foreground: nil, background: nil, bold: true)
            screen.put(cell.title, column: layout.textColumn, row: origin, foreground: nil, background: nil,
                       bold: selected)
        }
        drawn = kept
        screen.scrollingLines = ScrollingLines(lines: 0..<(layout.visibleRows * rowHeight), offset: viewport.top * rowHeight)
        screen.putStatusLine(statusLine(residentBytes: residentBytes), row: layout.statusRow)
    }

    /// A row's thumbnail area: the image in its box with the source size
    /// beside it; progress and failures beside the empty box, on the line
    /// under the title. `keep` learns every image drawn, so the next frame
    /// reuses it instead of scaling the thumbnail again.
    private func makeThumbnailView(keep: @escaping (ObjectIdentifier, HalfBlockImage) -> Void) -> LoadingView<Thumbnail> {
        let layout = layout
        let drawn = drawn
        let beside = { (region: ScreenRegion) in region.inset(columns: layout.textColumn - region.column, rows: 1) }
        let graphics = graphics
        return LoadingView(spinner: spinner) { thumbnail, region, screen in
            let source = thumbnail.source
            screen.put("\(source.width)×\(source.height)", line: 0, of: beside(region), foreground: Palette.dim)
            guard graphics == .halfBlocks else {
                screen.place(thumbnail, column: region.column, row: region.row, columns: layout.thumbnailColumns,
                             rows: region.rows)
                return
            }
            let key = ObjectIdentifier(thumbnail.pixels)
            let image = drawn[key] ?? HalfBlockImage(thumbnail: thumbnail, columns: layout.thumbnailColumns,
                                                     rows: region.rows, background: Palette.background)
            keep(key, image)
            screen.put(image, column: region.column, row: region.row)
        }
        .progressView { progress, spinner, region, screen in
            LoadingView<Thumbnail>.defaultProgressView(progress, spinner: spinner, in: beside(region), on: &screen)
        }
        .errorView { error, region, screen in
            LoadingView<Thumbnail>.defaultErrorView(retryHint: "r: retry")(error, beside(region), &screen)
        }
    }

    private func statusLine(residentBytes: Int) -> String {
        let work = work.workReport
        let statistics = work.statistics
        let range = viewport.visibleRange
        let shown = range.isEmpty ? "none" : "\(range.lowerBound + 1)–\(range.upperBound)"
        let parts = [
            "\(items.count) items", "rows \(shown)",
            "memory \(Self.bytes(work.memoryCost))/\(Self.bytes(work.memoryCostLimit))",
            "in flight \(work.inFlight)",
            "disk hits \(statistics.thumbnailDiskHits + statistics.originalDiskHits)",
            "RSS \(Self.bytes(residentBytes))",
            "q quit r retry",
        ]
        return " " + parts.joined(separator: " · ")
    }

    /// `768 B`, `12.5 KiB`, `31.9 MiB`: one decimal from KiB up.
    static func bytes(_ count: Int) -> String {
        guard count >= 1024 else { return "\(count) B" }
        let (unit, shift) = count >= 1 << 20 ? ("MiB", 20) : ("KiB", 10)
        let tenths = (count * 10 + (1 << (shift - 1))) >> shift
        return "\(tenths / 10).\(tenths % 10) \(unit)"
    }
}
