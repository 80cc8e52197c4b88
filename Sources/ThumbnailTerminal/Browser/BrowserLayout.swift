/// Where things go on a terminal of a given size: list rows of `rowHeight`
/// lines (a thumbnail one line shorter, then a blank line), a status line at
/// the bottom.
package struct BrowserLayout: Sendable, Hashable {
    package let columns: Int
    package let rows: Int
    package let rowHeight: Int

    package init(columns: Int, rows: Int, rowHeight: Int) {
        self.columns = max(1, columns)
        self.rows = max(2, rows)
        self.rowHeight = max(3, rowHeight)
    }

    /// List rows that fit above the status line (at least one).
    package var visibleRows: Int { max(1, (rows - 1) / rowHeight) }

    /// The width of a row's thumbnail area: a 4:3 box `rowHeight - 1` cells
    /// (twice as many pixels) tall, narrowed to leave 12 columns for text.
    package var thumbnailColumns: Int {
        let fourThirds = (2 * (rowHeight - 1) * 4 + 2) / 3
        return max(1, min(fourThirds, columns - 15))
    }

    /// The first column of a row's text (title, caption, progress): past the
    /// selection mark, the thumbnail and two blank columns.
    package var textColumn: Int { thumbnailColumns + 3 }

    /// The screen row where list row `index` of the window (0 = top) starts.
    package func rowOrigin(index: Int) -> Int { index * rowHeight }

    /// The screen row of the status line.
    package var statusRow: Int { rows - 1 }
}
