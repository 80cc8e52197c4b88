/// The few colours the browser's views share.
enum Palette {
    /// Behind thumbnails, and the status line's text.
    static let background = TerminalColor(red: 0, green: 0, blue: 0)
    /// Secondary text: progress, captions, the status line's background.
    static let dim = TerminalColor(red: 140, green: 140, blue: 140)
    /// Failures.
    static let alert = TerminalColor(red: 230, green: 80, blue: 70)
}

extension ScreenBuffer {
    /// Fills line `row` with `text` in the status line's colours (inverted, to the right edge).
    mutating func putStatusLine(_ text: String, row: Int) {
        let padded = text + String(repeating: " ", count: max(0, columns - CellWidth.of(text)))
        put(padded, column: 0, row: row, foreground: Palette.background, background: Palette.dim, bold: false)
    }
}
