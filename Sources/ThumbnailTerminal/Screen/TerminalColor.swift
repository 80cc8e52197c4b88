/// A colour as a terminal draws it: 24-bit where the terminal supports it,
/// else the nearest of the 256-colour palette.
package struct TerminalColor: Sendable, Hashable {
    package var red: UInt8
    package var green: UInt8
    package var blue: UInt8

    package init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// The levels of the palette's 6×6×6 colour cube (indices 16…231).
    private static let cubeLevels = [0, 95, 135, 175, 215, 255]

    /// The nearest colour of the xterm 256-colour palette (squared RGB
    /// distance): from the colour cube or the 24-step grey ramp (232…255).
    package func paletteIndex() -> UInt8 {
        func nearestLevel(_ value: UInt8) -> Int {
            Self.cubeLevels.indices.min { abs(Self.cubeLevels[$0] - Int(value)) < abs(Self.cubeLevels[$1] - Int(value)) }!
        }
        let (r, g, b) = (nearestLevel(red), nearestLevel(green), nearestLevel(blue))
        let cube = (Self.cubeLevels[r], Self.cubeLevels[g], Self.cubeLevels[b])
        let average = (Int(red) + Int(green) + Int(blue)) / 3
        let step = min(23, max(0, (average - 8 + 5) / 10))
        let grey = 8 + 10 * step
        return distance(to: cube) <= distance(to: (grey, grey, grey))
            ? UInt8(16 + 36 * r + 6 * g + b)
            : UInt8(232 + step)
    }

    private func distance(to other: (Int, Int, Int)) -> Int {
        let (dr, dg, db) = (Int(red) - other.0, Int(green) - other.1, Int(blue) - other.2)
        return dr * dr + dg * dg + db * db
    }

    /// The SGR sequence that makes this the text colour.
    package func foregroundSequence(_ mode: ColorMode) -> String { sequence(mode, layer: 38) }

    /// The SGR sequence that makes this the cell's background.
    package func backgroundSequence(_ mode: ColorMode) -> String { sequence(mode, layer: 48) }

    private func sequence(_ mode: ColorMode, layer: Int) -> String {
        switch mode {
        case .trueColor: "\u{1B}[\(layer);2;\(red);\(green);\(blue)m"
        case .palette256: "\u{1B}[\(layer);5;\(paletteIndex())m"
        }
    }
}
