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

    @Test func controlAndBidiCharactersInTextAreShownAsEscapesNeverSent() {
        var screen = ScreenBuffer(columns: 60, rows: 1)
        screen.put("a\u{1B}[2Jb\nc\u{9B}\u{202E}d\u{1B}]52;c;eA==\u{07}", column: 0, row: 0,
                   foreground: nil, background: nil, bold: false)
        let output = screen.render(changesFrom: nil, mode: .trueColor)
        #expect(!output.unicodeScalars.contains { $0 == "\n" || $0 == "\u{9B}" || $0 == "\u{202E}" || $0 == "\u{07}" })
        let terminal = ScreenBuffer.replay([screen])
        #expect(terminal.unknownSequences.isEmpty, "only the buffer's own cursor moves and colours")
        let escaped = #"a\u{1B}[2Jb\u{0A}c\u{9B}\u{202E}d\u{1B}]52;c;eA==\u{07}"#
        let shown = escaped + String(repeating: " ", count: 60 - escaped.count)
        #expect(terminal.text(ofRow: 0) == shown && screen.text(ofRow: 0) == shown)
    }

    @Test func aWideCharacterTakesTwoCellsAndOneThatDoesNotFitLeavesABlank() {
        var screen = ScreenBuffer(columns: 10, rows: 2)
        screen.put("日本語のタイトル", column: 3, row: 0, foreground: nil, background: nil, bold: false)
        #expect(screen.cell(column: 3, row: 0).character == "日" && screen.cell(column: 4, row: 0).isTrailingHalf)
        #expect(screen.cell(column: 7, row: 0).character == "語" && screen.cell(column: 8, row: 0).isTrailingHalf)
        #expect(screen.cell(column: 9, row: 0).character == " " && !screen.cell(column: 9, row: 0).isTrailingHalf)
        let terminal = ScreenBuffer.replay([screen])
        #expect(terminal.overflows == 0, "nothing runs into the next row")
        #expect(terminal.text(ofRow: 0) == "   日本語 " && terminal.text(ofRow: 1) == String(repeating: " ", count: 10))
    }

    @Test func zeroWidthCharactersTakeNoCellAndCombiningMarksStayWithTheirLetter() {
        var screen = ScreenBuffer(columns: 8, rows: 1)
        screen.put("\u{301}e\u{301}\u{200B}x👨‍👩‍👧y", column: 0, row: 0, foreground: nil, background: nil, bold: false)
        #expect(screen.text(ofRow: 0) == "e\u{301}x👨‍👩‍👧y   ")
        #expect(ScreenBuffer.replay([screen]).text(ofRow: 0) == screen.text(ofRow: 0))
    }

    @Test func overwritingHalfAWideCharacterBlanksTheOtherHalf() {
        var screen = ScreenBuffer(columns: 6, rows: 1)
        screen.put("日本語", column: 0, row: 0, foreground: nil, background: nil, bold: false)
        screen.put("x", column: 1, row: 0, foreground: nil, background: nil, bold: false)
        screen.put("y", column: 4, row: 0, foreground: nil, background: nil, bold: false)
        #expect(screen.text(ofRow: 0) == " x本y ")
        #expect(!(0..<6).contains { screen.cell(column: $0, row: 0).isTrailingHalf && $0 != 3 })
    }

    @Test(arguments: [
        ["日本語abc", "a日本語bc", "abc日本語", "日本", "x", "😀👨‍👩‍👧xyz"],
        ["abcdefghij", "日本語のタイトル", "ab日本語", "abcdefghij", "한국어 제목"],
    ])
    func changesDrawnOverWideCharactersLeaveNothingStale(titles: [String]) {
        let frames = titles.map { title in
            var screen = ScreenBuffer(columns: 10, rows: 2)
            screen.put(title, column: 1, row: 0, foreground: nil, background: nil, bold: false)
            screen.put(String(title.reversed()), column: 0, row: 1, foreground: nil, background: nil, bold: false)
            return screen
        }
        for count in 2...frames.count {
            let terminal = ScreenBuffer.replay(Array(frames.prefix(count)))
            let last = frames[count - 1]
            #expect(terminal.overflows == 0)
            #expect((0..<2).map(terminal.text(ofRow:)) == (0..<2).map(last.text(ofRow:)), "after \(titles.prefix(count))")
        }
    }
}
