import Testing
import ThumbnailTerminal

/// Only what changed is written.
@Suite struct ScreenBufferTests {
    static let red = TerminalColor(red: 255, green: 0, blue: 0)

    func screen(_ text: String) -> ScreenBuffer {
        var screen = ScreenBuffer(columns: 10, rows: 3)
        screen.put(text, column: 0, row: 1, foreground: nil, background: nil, bold: false)
        return screen
    }

    @Test func aBufferAgainstItselfWritesNothing() {
        #expect(screen("hello").render(changesFrom: screen("hello"), mode: .trueColor) == "")
    }

    @Test func oneChangedCellIsOneCursorMoveAndThatCell() {
        let output = screen("hallo").render(changesFrom: screen("hello"), mode: .trueColor)
        #expect(output == "\u{1B}[2;2H\u{1B}[0ma\u{1B}[0m")
    }

    @Test func aRunOfChangedCellsNeedsOneMove() {
        let output = screen("hiXYZ").render(changesFrom: screen("hello"), mode: .trueColor)
        #expect(output.components(separatedBy: "H").count == 2 && output.contains("iXYZ"))
    }

    @Test func aNewSizeRepaintsEverything() {
        let output = screen("a").render(changesFrom: ScreenBuffer(columns: 5, rows: 3), mode: .trueColor)
        #expect(output.hasPrefix("\u{1B}[0m\u{1B}[2J") && output.filter { $0 == " " }.count == 29)
    }

    @Test func coloursAreWrittenOnceForARunAndInThePaletteWhenAsked() {
        var coloured = ScreenBuffer(columns: 10, rows: 3)
        coloured.put("ab", column: 0, row: 0, foreground: Self.red, background: nil, bold: false)
        let output = coloured.render(changesFrom: ScreenBuffer(columns: 10, rows: 3), mode: .palette256)
        #expect(output == "\u{1B}[1;1H\u{1B}[0m\u{1B}[38;5;196mab\u{1B}[0m")
    }

    @Test func textIsClippedAtTheEdge() {
        var screen = ScreenBuffer(columns: 4, rows: 1)
        screen.put("abcdef", column: 2, row: 0, foreground: nil, background: nil, bold: false)
        #expect(screen.cell(column: 2, row: 0).character == "a" && screen.cell(column: 3, row: 0).character == "b")
    }

    @Test func controlCharactersInTextNeverReachTheTerminal() {
        var screen = ScreenBuffer(columns: 20, rows: 1)
        screen.put("a\u{1B}[2Jb\nc\u{9B}", column: 0, row: 0, foreground: nil, background: nil, bold: false)
        let output = screen.render(changesFrom: nil, mode: .trueColor)
        #expect(!output.contains("\u{1B}[2Jb") && !output.contains("\n") && !output.contains("\u{9B}"))
        #expect((0..<8).map { screen.cell(column: $0, row: 0).character } == ["a", "?", "[", "2", "J", "b", "?", "c"])
    }
}
