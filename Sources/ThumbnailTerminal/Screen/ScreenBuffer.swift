import ThumbnailKit

/// What the terminal should show: a grid of styled cells, and the images a
/// graphics protocol draws over blank cells. Rendering one buffer against the
/// last one drawn writes only the cells that changed; an ``ImageRenderer``
/// does the same for the images.
package struct ScreenBuffer: Sendable, Hashable {
    package let columns: Int
    package let rows: Int
    private var cells: [StyledCell]
    /// The images over the cells, in the order placed.
    package private(set) var images: [ImagePlacement] = []
    /// The lines that scroll as one (a list's rows), if any.
    package var scrollingLines: ScrollingLines?

    package init(columns: Int, rows: Int) {
        self.columns = max(0, columns)
        self.rows = max(0, rows)
        cells = Array(repeating: StyledCell(), count: self.columns * self.rows)
    }

    package func cell(column: Int, row: Int) -> StyledCell {
        cells[row * columns + column]
    }

    /// Writes `text` from `column` on `row`, clipped at the edges. The text
    /// is escaped first (``TerminalText``): it comes from feeds, and an
    /// escape, a newline or a bidi control must not reach the terminal. Each
    /// character takes the cells it takes on a terminal (``CellWidth``): a
    /// wide one two, a zero-width one none (it is left out, as it would show
    /// nothing); a wide one that does not fit whole at an edge leaves a blank.
    /// At most `width` cells are written (the rest of the line by default).
    package mutating func put(_ text: String, column: Int, row: Int, foreground: TerminalColor?,
                             background: TerminalColor?, bold: Bool, width: Int = .max) {
        guard row >= 0, row < rows else { return }
        let style = StyledCell(foreground: foreground, background: background, bold: bold)
        var x = column
        for character in CellWidth.truncated(TerminalText.escaped(text), to: min(width, columns - column)) {
            let width = CellWidth.of(character)
            if x >= 0 {
                place(character, width: width, style: style, column: x, row: row)
            } else if x + width > 0 {
                place(" ", width: 1, style: style, column: 0, row: row)  // the visible half of a wide character
            }
            x += width
        }
    }

    /// Draws `image` with its top left cell at `column`, `row`, clipped at the edges.
    package mutating func put(_ image: HalfBlockImage, column: Int, row: Int) {
        for y in 0..<image.height where row + y >= 0 && row + y < rows {
            for x in 0..<image.width where column + x >= 0 && column + x < columns {
                let cell = image.cell(column: x, row: y)
                place("▀", width: 1, style: StyledCell(foreground: cell.top, background: cell.bottom),
                      column: column + x, row: row + y)
            }
        }
    }

    /// Shows `thumbnail` over `columns` × `rows` cells from `column`, `row`, through the
    /// graphics protocol; the cells under it are left blank for it.
    package mutating func place(_ thumbnail: Thumbnail, column: Int, row: Int, columns: Int, rows: Int) {
        guard row >= 0, column >= 0, row + rows <= self.rows, column + columns <= self.columns else { return }
        images.append(ImagePlacement(thumbnail: thumbnail, column: column, row: row, columns: columns, rows: rows))
    }

    /// Puts `character`, `width` cells wide, at `column` in `style`; a wide
    /// character's second cell becomes its ``StyledCell/isTrailingHalf``.
    /// A wide character partly overwritten is blanked whole, as a terminal
    /// does, so no half of it is left to go stale.
    private mutating func place(_ character: Character, width: Int, style: StyledCell, column: Int, row: Int) {
        guard width > 0 else { return }
        let index = row * columns + column
        breakWideCharacter(at: index)
        var cell = style
        cell.character = character
        cells[index] = cell
        if width == 2 {
            breakWideCharacter(at: index + 1)
            cell.character = " "
            cell.isTrailingHalf = true
            cells[index + 1] = cell
        }
    }

    /// Blanks the other half of the wide character covering cell `index`, if any.
    private mutating func breakWideCharacter(at index: Int) {
        let column = index % columns
        if cells[index].isTrailingHalf, column > 0 {
            cells[index - 1].character = " "
        } else if column + 1 < columns, cells[index + 1].isTrailingHalf {
            cells[index + 1].isTrailingHalf = false
        }
        cells[index].isTrailingHalf = false
    }

    /// This buffer as a terminal shows it after moving its ``scrollingLines`` up by `distance`
    /// (down when negative): their cells move, the lines scrolled in are blank, the images move
    /// with them (those the move cut are left out: the terminal keeps only part of them).
    package func scrolled(by distance: Int) -> ScreenBuffer {
        guard let region = scrollingLines?.lines else { return self }
        var moved = self
        for row in region {
            let source = row + distance
            for column in 0..<columns {
                moved.cells[row * columns + column] = region.contains(source) ? cells[source * columns + column] : StyledCell()
            }
        }
        moved.images = images.compactMap { image in
            switch image.scrolled(by: distance, lines: region) {
            case .kept: image
            case let .moved(placement): placement
            case .cut: nil
            }
        }
        moved.scrollingLines?.offset += distance
        return moved
    }

    /// The escape sequences that turn a terminal showing `previous` into one
    /// showing this buffer: only changed cells, one cursor move per run of
    /// them on a line, colours only when they change. Everything is written
    /// when there is no `previous` or its size differs.
    package func render(changesFrom previous: ScreenBuffer?, mode: ColorMode) -> String {
        let everything = previous == nil || previous?.columns != columns || previous?.rows != rows
        var output = everything ? "\u{1B}[0m\u{1B}[2J" : ""
        var style: StyledCell?  // the style last emitted (character ignored)
        var cursor: (column: Int, row: Int)?
        for row in 0..<rows {
            for column in 0..<columns {
                let cell = self.cell(column: column, row: row)
                // Drawn with the character on its left, and unchanged when that is.
                if cell.isTrailingHalf { continue }
                if !everything, let previous, previous.cell(column: column, row: row) == cell { continue }
                if cursor.map({ $0.row != row || $0.column != column }) ?? true {
                    output += "\u{1B}[\(row + 1);\(column + 1)H"
                }
                if style.map({ !$0.hasSameStyle(as: cell) }) ?? true {
                    output += cell.styleSequence(mode)
                    style = cell
                }
                output.append(cell.character)
                cursor = (column + CellWidth.of(cell.character), row)
            }
        }
        if style != nil { output += "\u{1B}[0m" }
        return output
    }
}

/// One character cell: what it shows and in which colours.
package struct StyledCell: Sendable, Hashable {
    /// One or two columns wide (``CellWidth``); a space in a trailing half.
    package var character: Character = " "
    /// The text colour; `nil` for the terminal's own.
    package var foreground: TerminalColor?
    /// The cell's background; `nil` for the terminal's own.
    package var background: TerminalColor?
    package var bold = false
    /// Whether this cell is the right half of the wide character in the cell
    /// before it, which the terminal draws across both.
    package internal(set) var isTrailingHalf = false

    package init(character: Character = " ", foreground: TerminalColor? = nil, background: TerminalColor? = nil,
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
