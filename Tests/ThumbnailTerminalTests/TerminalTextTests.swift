import Testing
import ThumbnailTerminal

/// Text from feeds reaches the terminal only as something to read: every
/// sequence a terminal would act on comes out as a visible escape.
@Suite struct TerminalTextTests {
    /// Whether `text` holds a scalar a terminal acts on: C0, DEL, C1, a line or paragraph separator or a
    /// bidi control.
    func holdsControls(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || [0x2028, 0x2029].contains(scalar.value)
                || [0x061C, 0x200E, 0x200F, 0x2066, 0x2067, 0x2068, 0x2069].contains(scalar.value)
                || (0x202A...0x202E).contains(scalar.value)
        }
    }

    @Test func anOSC52ClipboardWriteIsShownNotSent() {
        let attack = "\u{1B}]52;c;Y3VybCBldmlsfHNo\u{07}"
        #expect(TerminalText.escaped(attack) == #"\u{1B}]52;c;Y3VybCBldmlsfHNo\u{07}"#)
    }

    @Test func aTitleSetAndAScreenClearAreShownNotSent() {
        #expect(TerminalText.escaped("\u{1B}]0;owned\u{1B}\\") == #"\u{1B}]0;owned\u{1B}\\"#)
        #expect(TerminalText.escaped("a\u{1B}[2Jb") == #"a\u{1B}[2Jb"#)
    }

    @Test func everyC0ControlAndDELAreEscapedNewlinesAndTabsIncluded() {
        for value in Array(0x00...0x1F) + [0x7F] {
            let scalar = Unicode.Scalar(UInt8(value))
            let escaped = TerminalText.escaped(String(scalar))
            #expect(!holdsControls(escaped), "U+\(value)")
            #expect(escaped.hasPrefix(#"\u{"#) && escaped.hasSuffix("}"), "U+\(value): \(escaped)")
        }
        #expect(TerminalText.escaped("a\nb\tc\r") == #"a\u{0A}b\u{09}c\u{0D}"#)
    }

    @Test func c1ControlsAreEscapedTheSingleByteCSIIncluded() {
        #expect(TerminalText.escaped("\u{9B}31m") == #"\u{9B}31m"#)
        for value in 0x80...0x9F {
            let escaped = TerminalText.escaped(String(Unicode.Scalar(UInt8(value))))
            #expect(!holdsControls(escaped) && escaped.hasPrefix(#"\u{"#), "U+\(value): \(escaped)")
        }
    }

    @Test func bidiControlsAreEscaped() {
        #expect(TerminalText.escaped("abc\u{202E}gpj.exe") == #"abc\u{202E}gpj.exe"#)
        let bidi: [UInt32] = [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069]
        for value in bidi {
            let text = "x" + String(Unicode.Scalar(value)!) + "y"
            let escaped = TerminalText.escaped(text)
            #expect(!holdsControls(escaped), "U+\(String(value, radix: 16)): \(escaped)")
            #expect(escaped == "x\\u{\(String(value, radix: 16, uppercase: true))}y")
        }
    }

    /// U+2028 and U+2029 break lines in some terminals and viewers: a feed's title must not start a
    /// line of its own in a summary: they are escaped as newlines are.
    @Test func lineAndParagraphSeparatorsAreEscapedLikeOtherLineBreaks() {
        #expect(TerminalText.escaped("a\u{2028}b\u{2029}c\nd") == #"a\u{2028}b\u{2029}c\u{0A}d"#)
        #expect(TerminalText.escaped(utf8: Array("x\u{2028}".utf8)) == #"x\u{2028}"#)
    }

    @Test func aBackslashIsEscapedSoNoTextPassesForAnEscape() {
        #expect(TerminalText.escaped(#"\u{1B}"#) == #"\\u{1B}"#)
        #expect(TerminalText.escaped("\u{1B}") != TerminalText.escaped(#"\u{1B}"#))
    }

    @Test func printableTextWideAndCombiningIncludedIsKept() {
        for text in ["plain ASCII", "日本語のタイトル", "e\u{301}te\u{301}", "👨‍👩‍👧 🇫🇷", "ZWSP\u{200B}ZWJ\u{200D}", "→ · × ▀"] {
            #expect(TerminalText.escaped(text) == text)
        }
    }

    @Test func invalidUTF8BytesAreEscapedOneByOneAndValidBytesDecoded() {
        let bytes: [UInt8] = [0x61, 0xFF, 0x62, 0xC3, 0xA9, 0xC3, 0x1B, 0xE2, 0x80, 0x63, 0xF0, 0x9F, 0x98, 0x80, 0xED, 0xA0, 0x80]
        #expect(TerminalText.escaped(utf8: bytes) == #"a\xFFbé\xC3\u{1B}\xE2\x80c😀\xED\xA0\x80"#)
    }

    @Test func validUTF8BytesReadAsTheirText() {
        let text = "a\u{1B}[2J\u{9B}\u{202E}日本\\"
        #expect(TerminalText.escaped(utf8: Array(text.utf8)) == TerminalText.escaped(text))
    }

    @Test func isControlNamesExactlyTheEscapedScalars() {
        #expect(TerminalText.isControl("\u{1B}") && TerminalText.isControl("\u{7F}") && TerminalText.isControl("\u{9F}"))
        #expect(TerminalText.isControl("\u{2066}") && TerminalText.isControl("\u{061C}"))
        #expect(!TerminalText.isControl(" ") && !TerminalText.isControl("\u{A0}") && !TerminalText.isControl("\u{200B}"))
        #expect(TerminalText.isControl("\u{2028}") && TerminalText.isControl("\u{2029}"))
        #expect(!TerminalText.isControl("\u{2027}") && !TerminalText.isControl("\u{202F}"))
    }
}
