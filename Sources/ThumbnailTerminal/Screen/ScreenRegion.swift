/// A rectangle of the screen, in cells: where a view draws.
package struct ScreenRegion: Sendable, Hashable {
    package var column: Int
    package var row: Int
    package var columns: Int
    package var rows: Int

    package init(column: Int, row: Int, columns: Int, rows: Int) {
        self.column = column
        self.row = row
        self.columns = max(0, columns)
        self.rows = max(0, rows)
    }

    /// The part of this region from `column` cells in and `row` lines down.
    package func inset(columns column: Int = 0, rows row: Int = 0) -> ScreenRegion {
        ScreenRegion(column: self.column + column, row: self.row + row, columns: columns - column, rows: rows - row)
    }
}

extension ScreenBuffer {
    /// Writes `text` on line `line` of `region` (0 is its top), clipped to the
    /// region; a line outside it writes nothing.
    package mutating func put(_ text: String, line: Int, of region: ScreenRegion, foreground: TerminalColor?,
                             bold: Bool = false) {
        guard line >= 0, line < region.rows else { return }
        put(text, column: region.column, row: region.row + line, foreground: foreground, background: nil,
            bold: bold, width: region.columns)
    }
}
