/// The selected row of a list and the window of rows on screen, moved by keys.
package struct ListViewport: Sendable, Hashable {
    package let itemCount: Int
    package private(set) var visibleRows: Int
    /// The selected row (0 when the list is empty).
    package private(set) var selected = 0
    /// The first row on screen.
    package private(set) var top = 0

    package init(itemCount: Int, visibleRows: Int) {
        self.itemCount = max(0, itemCount)
        self.visibleRows = max(1, visibleRows)
    }

    /// The rows on screen.
    package var visibleRange: Range<Int> { top..<min(itemCount, top + visibleRows) }

    /// The `distance` rows after the visible ones, to prefetch.
    package func prefetchRange(distance: Int) -> Range<Int> {
        let start = visibleRange.upperBound
        return start..<min(itemCount, start + max(0, distance))
    }

    /// Moves the selection as `key` asks and scrolls to keep it on screen; other keys do nothing.
    package mutating func apply(_ key: Key) {
        switch key {
        case .down: select(selected + 1)
        case .up: select(selected - 1)
        case .pageDown: select(selected + visibleRows)
        case .pageUp: select(selected - visibleRows)
        case .top: select(0)
        case .bottom: select(itemCount - 1)
        case .retry, .quit, .character: break
        }
    }

    /// Shows `visibleRows` rows from now on, the selection still on screen.
    package mutating func resize(visibleRows: Int) {
        self.visibleRows = max(1, visibleRows)
        select(selected)
    }

    private mutating func select(_ row: Int) {
        guard itemCount > 0 else { return }
        selected = min(itemCount - 1, max(0, row))
        if selected < top { top = selected }
        if selected >= top + visibleRows { top = selected - visibleRows + 1 }
        top = max(0, min(top, itemCount - visibleRows))
    }
}
