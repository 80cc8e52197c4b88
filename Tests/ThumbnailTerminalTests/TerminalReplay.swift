import ThumbnailTerminal

/// A terminal just capable enough to replay what ``ScreenBuffer`` writes, so
/// tests can check what a screen would show rather than which bytes were sent.
///
/// It knows cursor positioning (`CSI row;col H`), erase display (`CSI 2J`)
/// and ignores SGR (`CSI … m`); any other escape is recorded in
/// ``unknownSequences``. Characters take the cells ``CellWidth`` says; a wide
/// character overwritten in half is blanked whole, and writing past the last
/// column wraps to the next line as a terminal with autowrap does, counted in
/// ``overflows``.
struct TerminalReplay {
    let columns: Int
    let rows: Int
    /// `nil` marks the right half of a wide character.
    private var grid: [[Character?]]
    private var cursor = (column: 0, row: 0)
    private(set) var overflows = 0
    private(set) var unknownSequences: [String] = []

    init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
        grid = Array(repeating: Array(repeating: " ", count: columns), count: rows)
    }

    /// Replays `output`.
    mutating func write(_ output: String) {
        var scalars = output.unicodeScalars.makeIterator()
        var text = ""
        while let scalar = scalars.next() {
            guard scalar == "\u{1B}" else {
                text.unicodeScalars.append(scalar)
                continue
            }
            for character in text { put(character) }
            text = ""
            var sequence = ""
            guard scalars.next() == "[" else {
                unknownSequences.append("ESC")
                continue
            }
            while let next = scalars.next() {
                sequence.unicodeScalars.append(next)
                if (0x40...0x7E).contains(next.value) { break }
            }
            apply(sequence)
        }
        for character in text { put(character) }
    }

    /// What row `row` shows, one character per character drawn.
    func text(ofRow row: Int) -> String {
        String(grid[row].compactMap { $0 })
    }

    private mutating func apply(_ sequence: String) {
        switch sequence.last {
        case "H":
            let numbers = sequence.dropLast().split(separator: ";").map { Int($0) ?? 1 }
            cursor = (column: (numbers.count > 1 ? numbers[1] : 1) - 1, row: (numbers.first ?? 1) - 1)
        case "J" where sequence == "2J":
            grid = Array(repeating: Array(repeating: " ", count: columns), count: rows)
        case "m":
            break
        default:
            unknownSequences.append(sequence)
        }
    }

    private mutating func put(_ character: Character) {
        let width = CellWidth.of(character)
        guard width > 0 else { return }
        if cursor.column + width > columns {
            overflows += 1
            cursor = (column: 0, row: cursor.row + 1)
        }
        guard cursor.row < rows else { return }
        for column in cursor.column..<cursor.column + width { breakWideCharacter(at: column) }
        grid[cursor.row][cursor.column] = character
        if width == 2 { grid[cursor.row][cursor.column + 1] = nil }
        cursor.column += width
    }

    private mutating func breakWideCharacter(at column: Int) {
        let row = cursor.row
        if grid[row][column] == nil, column > 0 {
            grid[row][column - 1] = " "
            grid[row][column] = " "
        } else if column + 1 < columns, grid[row][column + 1] == nil {
            grid[row][column + 1] = " "
        }
    }
}

extension ScreenBuffer {
    /// What row `row` holds, one character per character drawn (trailing halves left out).
    func text(ofRow row: Int) -> String {
        String((0..<columns).compactMap { column in
            let cell = cell(column: column, row: row)
            return cell.isTrailingHalf ? nil : cell.character
        })
    }

    /// What a terminal shows after `frames` are drawn in turn, each as the changes from the one before.
    static func replay(_ frames: [ScreenBuffer]) -> TerminalReplay {
        var terminal = TerminalReplay(columns: frames[0].columns, rows: frames[0].rows)
        var previous: ScreenBuffer?
        for frame in frames {
            terminal.write(frame.render(changesFrom: previous, mode: .trueColor))
            previous = frame
        }
        return terminal
    }
}
