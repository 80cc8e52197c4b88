import Testing
import ThumbnailTerminal

/// Text is measured in the cells a terminal draws it in, and cut without
/// splitting a wide character.
@Suite struct CellWidthTests {
    @Test func asciiAndLatinTakeACellEach() {
        #expect(CellWidth.of("plain title") == 11)
        #expect(CellWidth.of("café · × ▀ →") == 12)
    }

    @Test(arguments: [
        ("日本語", 6), ("ひらがな", 8), ("カタカナ", 8), ("한국어", 6), ("中文标题", 8),
        ("ＡＢＣ", 6), ("￥", 2), ("、。", 4), ("\u{3000}", 2), ("𠀋", 2), ("ｶﾀｶﾅ", 4),
    ])
    func eastAsianWideAndFullwidthTakeTwoCellsHalfwidthOne(text: String, cells: Int) {
        #expect(CellWidth.of(text) == cells, "\(text)")
    }

    @Test func combiningMarksAndZeroWidthCharactersTakeNone() {
        #expect(CellWidth.of("e\u{301}") == 1, "e + combining acute is one character, one cell")
        #expect(CellWidth.of("a\u{20DD}") == 1, "an enclosing mark")
        #expect(CellWidth.of("か\u{3099}") == 2, "a kana with a combining voicing mark")
        #expect(CellWidth.of("a\u{200B}b\u{200C}c\u{200D}d") == 4, "zero-width space, non-joiner and joiner")
        #expect(CellWidth.of("\u{FE00}") == 0 && CellWidth.of("\u{2060}") == 0 && CellWidth.of("\u{FEFF}") == 0)
        #expect(CellWidth.of("\u{301}") == 0, "a combining mark on its own")
    }

    @Test func emojiTakeTwoCellsSequencesIncluded() {
        #expect(CellWidth.of("😀") == 2 && CellWidth.of("🚀") == 2 && CellWidth.of("🧪") == 2)
        #expect(CellWidth.of("👨‍👩‍👧") == 2, "a ZWJ family is one emoji")
        #expect(CellWidth.of("👍🏽") == 2, "with a skin tone modifier")
        #expect(CellWidth.of("🇫🇷") == 2, "a flag of two regional indicators")
        #expect(CellWidth.of("❤️") == 2, "a text-default symbol with variation selector 16")
        #expect(CellWidth.of("❤") == 1, "the same symbol without it")
        #expect(CellWidth.of("1️⃣") == 2, "a keycap")
    }

    @Test func aMixedTitleAddsUp() {
        #expect(CellWidth.of("Tokyo 東京 🗼 e\u{301}") == 6 + 4 + 1 + 2 + 1 + 1)
    }

    @Test func truncationKeepsWholeCharactersThatFit() {
        #expect(CellWidth.truncated("abcdef", to: 4) == "abcd")
        #expect(CellWidth.truncated("abc", to: 10) == "abc", "short text is not padded")
        #expect(CellWidth.truncated("abc", to: 0) == "" && CellWidth.truncated("abc", to: -3) == "")
        #expect(CellWidth.truncated("日本語", to: 4) == "日本")
    }

    @Test func aWideCharacterThatDoesNotFitIsReplacedByASpaceNeverSplit() {
        #expect(CellWidth.truncated("日本語", to: 5) == "日本 ")
        #expect(CellWidth.truncated("a😀b", to: 2) == "a ")
        #expect(CellWidth.truncated("👨‍👩‍👧x", to: 1) == " ")
        for cells in 0...9 {
            let cut = CellWidth.truncated("日a本b語", to: cells)
            #expect(CellWidth.of(cut) == min(cells, 8), "\(cells): \(cut)")
        }
    }

    @Test func truncationKeepsCombiningMarksWithTheirCharacter() {
        #expect(CellWidth.truncated("e\u{301}e\u{301}e\u{301}", to: 2) == "e\u{301}e\u{301}")
        #expect(CellWidth.truncated("a\u{200B}b", to: 1) == "a\u{200B}", "a zero-width character costs nothing")
    }
}
