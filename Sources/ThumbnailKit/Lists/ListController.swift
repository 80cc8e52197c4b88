/// A table view without a screen: a front end tells it which rows are visible
/// and which to prefetch, and it does what `UITableView` does with its cells.
///
/// - It owns a pool of ``ListCell``s. A row scrolling into view gets a cell
///   from the pool (one is made only when the pool is empty), its data source
///   configures it; a row scrolling out has its cell reset and returned. The
///   pool so never holds more cells than the most rows ever visible at once.
/// - Rows are ``RowController``s: roles composed per row, each optional but
///   the data source. They are made as they are needed, when a row becomes
///   visible or starts prefetching, and let go when it is neither: a list of
///   millions of rows holds the controllers of a few pages, not one per row.
/// - Prefetching goes through a ``Prefetcher``. A row that leaves the screen
///   outside the prefetch window has its prefetch stopped; one that becomes
///   visible while prefetching keeps that work, and its cell joins it.
@MainActor public final class ListController {
    /// How many rows the list has.
    public let rowCount: Int
    private let makeRow: (Int) -> RowController
    /// The controllers of the rows visible or prefetching now, each made once while it stays so: a
    /// prefetch is cancelled through the controller that started it.
    private var liveRows: [Int: RowController] = [:]
    private var cellsByRow: [Int: ListCell] = [:]
    private var reusableCells: [ListCell] = []
    private var prefetchWindow: Range<Int> = 0..<0
    private lazy var prefetcher = Prefetcher { [unowned self] row in
        (0..<self.rowCount).contains(row) ? self.row(row).prefetching : nil
    }

    /// The rows on screen now.
    public private(set) var visibleRows: Range<Int> = 0..<0
    /// Cells made so far: the size of the pool.
    package private(set) var cellCount = 0

    /// - Parameter rows: the rows; what their cells show, and where it comes
    ///   from, is up to their data sources.
    public convenience init(rows: [RowController]) {
        self.init(rowCount: rows.count) { rows[$0] }
    }

    /// - Parameters:
    ///   - rowCount: how many rows the list has.
    ///   - row: makes the controller of a row, by index, when it becomes visible or starts prefetching
    ///     (again after it was let go); what its cells show is up to its data source.
    public init(rowCount: Int, row: @escaping (Int) -> RowController) {
        self.rowCount = rowCount
        makeRow = row
    }

    /// The cells on screen, in row order.
    public var visibleCells: [(row: Int, cell: ListCell)] {
        visibleRows.compactMap { row in cellsByRow[row].map { (row, $0) } }
    }

    /// The cell showing `row`, if it is visible.
    public func cell(forRow row: Int) -> ListCell? { cellsByRow[row] }

    /// The row `cell` shows now; `nil` when it waits in the pool.
    public func row(of cell: ListCell) -> Int? {
        cellsByRow.first { $0.value === cell }?.key
    }

    /// Rows being prefetched now.
    public var prefetchingRows: Set<Int> { prefetcher.prefetchingRows }

    /// Makes `range` (clamped to the rows) the visible rows: cells of rows that
    /// left are reset and pooled first, then rows that arrived get cells.
    public func display(rows range: Range<Int>) {
        let range = range.clamped(to: 0..<rowCount)
        for row in visibleRows where !range.contains(row) {
            guard let cell = cellsByRow.removeValue(forKey: row) else { continue }
            self.row(row).delegate?.didEndDisplaying(cell)
            cell.prepareForReuse()
            reusableCells.append(cell)
            if !prefetchWindow.contains(row) { prefetcher.cancelPrefetching(rows: [row]) }
        }
        let previous = visibleRows
        visibleRows = range
        for row in range where !previous.contains(row) {
            let cell = dequeueCell()
            cellsByRow[row] = cell
            let controller = self.row(row)
            controller.dataSource.configure(cell)
            controller.delegate?.willDisplay(cell)
        }
        letGoOfIdleRows()
    }

    /// Makes `range` (clamped) the prefetch window: its rows that are not
    /// visible start prefetching, nearest to the visible rows first; rows that
    /// left the window and are not visible stop.
    public func prefetch(rows range: Range<Int>) {
        let range = range.clamped(to: 0..<rowCount)
        prefetchWindow = range
        let wanted = range.filter { !visibleRows.contains($0) }
        prefetcher.cancelPrefetching(rows: prefetcher.prefetchingRows.filter {
            !range.contains($0) && !visibleRows.contains($0)
        }.sorted())
        prefetcher.prefetch(rows: wanted.sorted { distanceFromVisible($0) < distanceFromVisible($1) })
        letGoOfIdleRows()
    }

    /// The controller of row `index`: the list's own while the row is visible or prefetching (the
    /// one whose prefetch the list stops), else one the row factory makes now, which the list does
    /// not keep. `nil` outside `0..<rowCount`.
    public func row(at index: Int) -> RowController? {
        guard (0..<rowCount).contains(index) else { return nil }
        return liveRows[index] ?? makeRow(index)
    }

    /// The controller of `row`: the live one, or a new one that stays live until ``letGoOfIdleRows()``.
    private func row(_ row: Int) -> RowController {
        if let live = liveRows[row] { return live }
        let made = makeRow(row)
        liveRows[row] = made
        return made
    }

    /// Drops the controllers of rows neither visible nor prefetching, so that the live ones stay a few pages.
    private func letGoOfIdleRows() {
        let prefetching = prefetcher.prefetchingRows
        liveRows = liveRows.filter { visibleRows.contains($0.key) || prefetching.contains($0.key) }
    }

    private func distanceFromVisible(_ row: Int) -> Int {
        row < visibleRows.lowerBound ? visibleRows.lowerBound - row : row - visibleRows.upperBound
    }

    private func dequeueCell() -> ListCell {
        let cell = reusableCells.popLast() ?? {
            cellCount += 1
            return ListCell(id: cellCount)
        }()
        cell.useCount += 1
        return cell
    }
}
