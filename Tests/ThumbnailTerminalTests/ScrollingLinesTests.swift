import TestSupport
import Testing
import ThumbnailKit
@testable import ThumbnailTerminal

/// A list that scrolled is moved by the terminal, and only what came into view is written.
@Suite struct ScrollingLinesTests {
    @Test func theDistanceIsHowFarTheSameLinesMovedWhenLessThanTheirHeight() {
        let lines = ScrollingLines(lines: 0..<35, offset: 14)
        #expect(lines.distance(from: ScrollingLines(lines: 0..<35, offset: 7)) == 7)
        #expect(lines.distance(from: ScrollingLines(lines: 0..<35, offset: 21)) == -7)
        #expect(lines.distance(from: ScrollingLines(lines: 0..<35, offset: 14)) == nil, "nothing moved")
        #expect(lines.distance(from: ScrollingLines(lines: 0..<35, offset: 49)) == nil, "a page or more: drawn again")
        #expect(lines.distance(from: ScrollingLines(lines: 0..<28, offset: 7)) == nil, "other lines (a resize)")
        #expect(lines.distance(from: nil) == nil)
    }

    @Test func theTerminalScrollsTheLinesInsideMarginsAndGetsTheWholeScreenBack() {
        let lines = ScrollingLines(lines: 0..<35, offset: 0)
        #expect(lines.scrollSequence(distance: 7) == "\u{1B}[0m\u{1B}[1;35r\u{1B}[7S\u{1B}[r")
        #expect(ScrollingLines(lines: 2..<9, offset: 0).scrollSequence(distance: -3) == "\u{1B}[0m\u{1B}[3;9r\u{1B}[3T\u{1B}[r")
    }

    static let words = ["ant", "bee", "cat", "dog", "eel", "fox", "gnu", "hen"]

    /// Lines 0…5 scroll (showing content lines offset…offset+5, a word each), line 6 is a status line.
    static func screen(offset: Int, status: String = "status") -> ScreenBuffer {
        var screen = ScreenBuffer(columns: 12, rows: 7)
        for line in 0..<6 {
            screen.put(words[offset + line], column: 0, row: line, foreground: nil, background: nil, bold: false)
        }
        screen.put(status, column: 0, row: 6, foreground: nil, background: nil, bold: false)
        screen.scrollingLines = ScrollingLines(lines: 0..<6, offset: offset)
        return screen
    }

    @Test func afterTheTerminalScrolledOnlyTheLinesThatCameIntoViewAreWritten() throws {
        let previous = Self.screen(offset: 0), next = Self.screen(offset: 2)
        let distance = try #require(next.scrollingLines?.distance(from: previous.scrollingLines))
        let scrolled = previous.scrolled(by: distance)
        #expect(scrolled.scrollingLines == next.scrollingLines)
        let written = next.render(changesFrom: scrolled, mode: .trueColor)
        #expect(written.contains("gnu") && written.contains("hen"), "the two new lines: \(written)")
        for moved in ["cat", "dog", "eel", "fox"] { #expect(!written.contains(moved), "\(moved) was moved, not written: \(written)") }
        #expect(!written.contains("status"), "the status line stays")
        // Without the scroll, the changed letters of every line are written again.
        let unscrolled = next.render(changesFrom: previous, mode: .trueColor)
        #expect(written.utf8.count < unscrolled.utf8.count && unscrolled.contains("\u{1B}[1;1H"), "\(unscrolled)")
    }

    @Test func imagesMoveWithTheLinesAndOneTheMoveCutIsLeftOut() throws {
        let thumbnail = try ThumbnailDecoder(size: .original).decode(NumberedImage.png(1, size: 8))
        var screen = Self.screen(offset: 0)
        screen.place(thumbnail, column: 1, row: 3, columns: 2, rows: 2)
        screen.place(thumbnail, column: 4, row: 0, columns: 2, rows: 2)
        let scrolled = screen.scrolled(by: 1)
        #expect(scrolled.images.map { [$0.column, $0.row] } == [[1, 2]], "the second lost its top line")
    }
}
