import ThumbnailKit

/// How a simulated user scrolls: a window of visible rows moving through the
/// list at a steady speed, prefetching ahead of it.
package struct ScrollScript: Sendable, Hashable {
    /// Rows on screen at once. Default: 10.
    package var visibleRows: Int
    /// Rows prefetched ahead of the visible ones, in the direction of travel. Default: 10.
    package var prefetchDistance: Int
    /// Speed of the scroll. Default: 4 rows a second (reading speed).
    package var rowsPerSecond: Double
    /// Whether the scroll comes back up to the top after reaching the bottom. Default: `false`.
    package var returnsToTop: Bool

    package init(visibleRows: Int = 10, prefetchDistance: Int = 10, rowsPerSecond: Double = 4,
                returnsToTop: Bool = false) {
        precondition(visibleRows >= 1 && prefetchDistance >= 0 && rowsPerSecond > 0)
        self.visibleRows = visibleRows
        self.prefetchDistance = prefetchDistance
        self.rowsPerSecond = rowsPerSecond
        self.returnsToTop = returnsToTop
    }

    /// The first visible row at each step, for a list of `rowCount` rows.
    func tops(rowCount: Int) -> [Int] {
        let last = max(0, rowCount - visibleRows)
        let down = Array(0...last)
        return returnsToTop ? down + down.reversed().dropFirst() : down
    }
}
