/// What the terminal should show: a grid of styled cells. Rendering one
/// buffer against the last one drawn writes only the cells that changed.
public struct ScreenBuffer: Sendable, Hashable {
    public let columns: Int
    public let rows: Int
    private var cells: [StyledCell]

    public init(columns: Int, rows: Int) {
        self.columns = max(0, columns)
        self.rows = max(0, rows)
        cells = Array(repeating: StyledCell(), count: self.columns * self.rows)
    }

    public func cell(column: Int, row: Int) -> StyledCell {
        cells[row * columns + column]
    }

    /// Writes `text` from `column` on `row`, one character a cell, clipped at
    /// the edges. Control characters are written as `?`: text comes from
    /// feeds, and an escape or a newline in a title must not reach the terminal.
    public mutating func put(_ text: String, column: Int, row: Int, foreground: TerminalColor?,
                             background: TerminalColor?, bold: Bool) {
        guard row >= 0, row < rows else { return }
        for (offset, character) in text.enumerated() {
            let x = column + offset
            guard x < columns else { return }
            guard x >= 0 else { continue }
            let isControl = character.unicodeScalars.contains { $0.properties.generalCategory == .control }
            cells[row * columns + x] = StyledCell(character: isControl ? "?" : character, foreground: foreground,
                                                  background: background, bold: bold)
        }
    }

    /// Draws `image` with its top left cell at `column`, `row`, clipped at the edges.
    public mutating func put(_ image: HalfBlockImage, column: Int, row: Int) {
        for y in 0..<image.height where row + y >= 0 && row + y < rows {
            for x in 0..<image.width where column + x >= 0 && column + x < columns {
                let cell = image.cell(column: x, row: y)
                cells[(row + y) * columns + column + x] = StyledCell(character: "▀", foreground: cell.top,
                                                                      background: cell.bottom, bold: false)
            }
        }
    }

    /// The escape sequences that turn a terminal showing `previous` into one
    /// showing this buffer: only changed cells, one cursor move per run of
    /// them on a line, colours only when they change. Everything is written
    /// when there is no `previous` or its size differs.
    public func render(changesFrom previous: ScreenBuffer?, mode: ColorMode) -> String {
        let everything = previous == nil || previous?.columns != columns || previous?.rows != rows
        var output = everything ? "\u{1B}[0m\u{1B}[2J" : ""
        var style: StyledCell?  // the style last emitted (character ignored)
        var cursor: (column: Int, row: Int)?
        for row in 0..<rows {
            for column in 0..<columns {
                let cell = self.cell(column: column, row: row)
                if !everything, let previous, previous.cell(column: column, row: row) == cell { continue }
                if cursor.map({ $0.row != row || $0.column != column }) ?? true {
                    output += "\u{1B}[\(row + 1);\(column + 1)H"
                }
                if style.map({ !$0.hasSameStyle(as: cell) }) ?? true {
                    output += cell.styleSequence(mode)
                    style = cell
                }
                output.append(cell.character)
                cursor = (column + 1, row)
            }
        }
        if style != nil { output += "\u{1B}[0m" }
        return output
    }
}

/// One character cell: what it shows and in which colours.
public struct StyledCell: Sendable, Hashable {
    /// One column wide.
    public var character: Character = " "
    /// The text colour; `nil` for the terminal's own.
    public var foreground: TerminalColor?
    /// The cell's background; `nil` for the terminal's own.
    public var background: TerminalColor?
    public var bold = false

    public init(character: Character = " ", foreground: TerminalColor? = nil, background: TerminalColor? = nil,
                bold: Bool = false) {
        self.character = character
        self.foreground = foreground
        self.background = background
        self.bold = bold
    }

    func hasSameStyle(as other: StyledCell) -> Bool {
        foreground == other.foreground && background == other.background && bold == other.bold
    }

    /// Reset, then this cell's attributes.
    func styleSequence(_ mode: ColorMode) -> String {
        "\u{1B}[0m" + (bold ? "\u{1B}[1m" : "") + (foreground?.foregroundSequence(mode) ?? "")
            + (background?.backgroundSequence(mode) ?? "")
    }
}
