import ThumbnailKit

/// The terminal list of a feed, without the terminal: keys in, frames out.
///
/// It owns a ``ListController`` (a fixed pool of row objects, reused as the
/// window moves), a ``ListViewport`` (selection and scrolling) and a
/// ``BrowserLayout``. Each key moves the viewport, shows the visible rows and
/// prefetches the page after them; ``frame(residentBytes:)`` draws what every
/// row shows now: its thumbnail in half-block cells, a spinner with the
/// percent while it loads, a retry mark with the reason when it failed.
/// The front end only reads keys, writes frames and reports resizes.
@MainActor public final class ListBrowser {
    /// One row: what it is called and where its image is.
    public struct Item: Sendable, Hashable {
        public var title: String
        public var imageURL: String

        public init(title: String, imageURL: String) {
            self.title = title
            self.imageURL = imageURL
        }
    }

    public let items: [Item]
    /// What the status line reports: the provider's memory, work in flight and disk hits.
    public let work: any ThumbnailWorkReporting
    public let colorMode: ColorMode
    public private(set) var layout: BrowserLayout
    public private(set) var viewport: ListViewport
    /// The rows and their reused cells.
    public let list: ListController
    private let rowHeight: Int
    private var spinnerFrame = 0
    private var drawn: [ObjectIdentifier: HalfBlockImage] = [:]

    private static let spinner = Array("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
    private static let background = TerminalColor(red: 0, green: 0, blue: 0)
    private static let dim = TerminalColor(red: 140, green: 140, blue: 140)
    private static let alert = TerminalColor(red: 230, green: 80, blue: 70)

    /// A browser whose rows load from `pipeline`, which the status line also reports on.
    public convenience init(items: [Item], pipeline: ThumbnailPipeline, columns: Int, rows: Int, rowHeight: Int,
                            colorMode: ColorMode) {
        self.init(items: items, provider: pipeline, work: pipeline, columns: columns, rows: rows,
                  rowHeight: rowHeight, colorMode: colorMode)
    }

    /// - Parameters:
    ///   - provider: where the rows' thumbnails come from.
    ///   - work: what the status line reports on (usually the provider).
    public init(items: [Item], provider: any ThumbnailProviding, work: any ThumbnailWorkReporting,
                columns: Int, rows: Int, rowHeight: Int, colorMode: ColorMode) {
        self.items = items
        self.work = work
        self.colorMode = colorMode
        self.rowHeight = rowHeight
        layout = BrowserLayout(columns: columns, rows: rows, rowHeight: rowHeight)
        viewport = ListViewport(itemCount: items.count, visibleRows: layout.visibleRows)
        // Thumbnails are made at the size they are drawn: the image area of a row, two pixels a cell.
        let size = ThumbnailSize.fit(width: layout.thumbnailColumns, height: 2 * (rowHeight - 1))
        list = ListController(rows: items.map { item in
            let row = ThumbnailRowController(request: ThumbnailRequest(url: item.imageURL, size: size),
                                             title: item.title, provider: provider)
            return RowController(row)
        })
        showVisibleRows()
    }

    /// Applies `key`; `false` when it asks to quit.
    public func handle(_ key: Key) -> Bool {
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
    public func resize(columns: Int, rows: Int) {
        layout = BrowserLayout(columns: columns, rows: rows, rowHeight: rowHeight)
        viewport.resize(visibleRows: layout.visibleRows)
        showVisibleRows()
    }

    /// Advances the spinner.
    public func tick() {
        spinnerFrame = (spinnerFrame + 1) % Self.spinner.count
    }

    private func showVisibleRows() {
        list.display(rows: viewport.visibleRange)
        list.prefetch(rows: viewport.prefetchRange(distance: layout.visibleRows))
    }

    /// Everything on screen now; `residentBytes` is shown in the status line.
    public func frame(residentBytes: Int) -> ScreenBuffer {
        var screen = ScreenBuffer(columns: layout.columns, rows: layout.rows)
        var kept: [ObjectIdentifier: HalfBlockImage] = [:]
        for (row, cell) in list.visibleCells {
            let origin = layout.rowOrigin(index: row - viewport.top)
            draw(cell, row: row, at: origin, on: &screen, keeping: &kept)
        }
        drawn = kept
        screen.put(statusLine(residentBytes: residentBytes), column: 0, row: layout.statusRow,
                   foreground: Self.background, background: Self.dim, bold: false)
        return screen
    }

    private func draw(_ cell: ListCell, row: Int, at origin: Int, on screen: inout ScreenBuffer,
                      keeping kept: inout [ObjectIdentifier: HalfBlockImage]) {
        let selected = row == viewport.selected
        let textColumn = layout.thumbnailColumns + 3
        screen.put(selected ? "›" : " ", column: 0, row: origin, foreground: nil, background: nil, bold: true)
        screen.put(cell.title, column: textColumn, row: origin, foreground: nil, background: nil, bold: selected)
        guard let state = cell.content(as: ThumbnailRowLoader.self)?.currentState else { return }
        switch state {
        case let .loaded(thumbnail):
            let key = ObjectIdentifier(thumbnail.pixels)
            let image = drawn[key] ?? HalfBlockImage(thumbnail: thumbnail, columns: layout.thumbnailColumns,
                                                     rows: rowHeight - 1, background: Self.background)
            kept[key] = image
            screen.put(image, column: 1, row: origin)
            screen.put("\(thumbnail.source.width)×\(thumbnail.source.height)", column: textColumn,
                       row: origin + 1, foreground: Self.dim, background: nil, bold: false)
        case let .loading(progress):
            let percent = progress?.percent.map { " \($0)%" } ?? ""
            let message = progress?.message.map { "  \($0)" } ?? ""
            screen.put("\(Self.spinner[spinnerFrame])\(percent)\(message)", column: textColumn, row: origin + 1,
                       foreground: Self.dim, background: nil, bold: false)
        case let .failure(error):
            screen.put("✗ r: retry · \(error)", column: textColumn, row: origin + 1,
                       foreground: Self.alert, background: nil, bold: false)
        case .idle:
            break
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
        let text = " " + parts.joined(separator: " · ")
        return text + String(repeating: " ", count: max(0, layout.columns - CellWidth.of(text)))
    }

    /// `768 B`, `12.5 KiB`, `31.9 MiB`: one decimal from KiB up.
    static func bytes(_ count: Int) -> String {
        guard count >= 1024 else { return "\(count) B" }
        let (unit, shift) = count >= 1 << 20 ? ("MiB", 20) : ("KiB", 10)
        let tenths = (count * 10 + (1 << (shift - 1))) >> shift
        return "\(tenths / 10).\(tenths % 10) \(unit)"
    }
}
