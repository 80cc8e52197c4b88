/// How graphics sequences reach the terminal that draws them: straight, or
/// through tmux to the terminal around it.
///
/// tmux keeps its own screen and passes on only what it understands, so an
/// image sequence must go through its passthrough (`ESC Ptmux; … ESC \`, every
/// `ESC` inside doubled), which tmux writes to the outer terminal untouched
/// when the pane allows it (`allow-passthrough on`). tmux does not move the
/// outer terminal's cursor for it: a placed sequence carries its own cursor
/// move, to the cell's place on the whole terminal (the pane's origin added).
package enum GraphicsRoute: Sendable, Hashable {
    /// The program's output is the terminal's input.
    case direct
    /// Through tmux's passthrough, from a pane whose top left cell is at `origin` on the outer terminal.
    case tmuxPassthrough(origin: PaneOrigin)

    /// Where a pane begins on the terminal, in cells from its top left, from 0.
    package struct PaneOrigin: Sendable, Hashable {
        package var row: Int
        package var column: Int

        package init(row: Int, column: Int) {
            self.row = row
            self.column = column
        }
    }

    /// `sequence`, drawn at the pane's cell `row`, `column` (from 0).
    package func placed(_ sequence: [UInt8], row: Int, column: Int) -> [UInt8] {
        switch self {
        case .direct:
            cursorMove(row: row, column: column) + sequence
        case let .tmuxPassthrough(origin):
            Self.passthrough(cursorMove(row: origin.row + row, column: origin.column + column) + sequence)
        }
    }

    /// `sequence`, which draws nothing where the cursor is (a transmission, a deletion, a query).
    package func unplaced(_ sequence: [UInt8]) -> [UInt8] {
        switch self {
        case .direct: sequence
        case .tmuxPassthrough: Self.passthrough(sequence)
        }
    }

    /// `ESC Ptmux; sequence ESC \`, each `ESC` of `sequence` doubled.
    static func passthrough(_ sequence: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [0x1B] + Array("Ptmux;".utf8)
        bytes.reserveCapacity(sequence.count + sequence.count / 16 + 10)
        for byte in sequence {
            if byte == 0x1B { bytes.append(0x1B) }
            bytes.append(byte)
        }
        return bytes + [0x1B, UInt8(ascii: "\\")]
    }
}

/// `CSI row ; column H`, both from 0.
func cursorMove(row: Int, column: Int) -> [UInt8] {
    Array("\u{1B}[\(row + 1);\(column + 1)H".utf8)
}
