/// How many terminal cells text takes: a CJK ideograph, a kana, a Hangul
/// syllable, a fullwidth form or an emoji takes two, a combining mark or a
/// zero-width character none, anything else one.
///
/// Measured per character (grapheme cluster), as current terminals draw them:
/// `e` with a combining acute is one cell, a ZWJ family or a flag is one
/// emoji of two. The widest code point of a character decides, and a
/// variation selector 16 (`U+FE0F`) makes an emoji two wide. The stdlib has no
/// East Asian Width property, so the Wide and Fullwidth blocks are a sorted
/// range table here; characters of ambiguous width count as one, as a
/// terminal outside a CJK locale draws them.
package enum CellWidth {
    /// Cells `text` takes, character by character. Control characters take
    /// none: ``TerminalText`` escapes them before anything is measured.
    package static func of(_ text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    /// Cells `character` takes: 0, 1 or 2.
    package static func of(_ character: Character) -> Int {
        var widest = 0
        for scalar in character.unicodeScalars {
            if scalar == "\u{FE0F}", character.unicodeScalars.first?.properties.isEmoji == true { return 2 }
            widest = max(widest, of(scalar))
        }
        return widest
    }

    /// Cells `scalar` takes on its own: 0 for controls, combining marks,
    /// format characters (zero-width spaces and joiners, bidi controls) and
    /// variation selectors; 2 for East Asian Wide and Fullwidth code points
    /// and emoji shown as emoji; 1 otherwise.
    package static func of(_ scalar: Unicode.Scalar) -> Int {
        let properties = scalar.properties
        switch properties.generalCategory {
        case .control, .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if properties.isEmojiPresentation || isWide(scalar.value) { return 2 }
        return 1
    }

    /// The longest prefix of whole characters of `text` that fits in `cells`;
    /// when the next character is wide and one cell is left, a space fills
    /// it, so the result takes exactly `min(cells, of(text))` cells and a
    /// wide character is never cut in half.
    package static func truncated(_ text: some StringProtocol, to cells: Int) -> String {
        var result = ""
        var used = 0
        for character in text {
            let width = of(character)
            guard used + width <= cells else {
                if used < cells { result += String(repeating: " ", count: cells - used) }
                break
            }
            result.append(character)
            used += width
        }
        return result
    }

    private static func isWide(_ value: UInt32) -> Bool {
        var low = 0
        var high = wideRanges.count
        while low < high {
            let middle = (low + high) / 2
            if wideRanges[middle].upperBound < value {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low < wideRanges.count && wideRanges[low].contains(value)
    }

    /// The East Asian Wide (W) and Fullwidth (F) blocks of Unicode's
    /// EastAsianWidth.txt, sorted; emoji that are wide by default are found
    /// by `isEmojiPresentation` instead. Combining marks inside these blocks
    /// (the kana voicing marks) are zero-width by their category first.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F,    // Hangul Jamo initial consonants
        0x2329...0x232A,    // angle brackets
        0x2E80...0x303E,    // CJK radicals, Kangxi radicals, ideographic description, CJK symbols and punctuation
        0x3041...0x33FF,    // Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, Kanbun, CJK strokes, enclosed and compatibility
        0x3400...0x4DBF,    // CJK Unified Ideographs Extension A
        0x4E00...0x9FFF,    // CJK Unified Ideographs
        0xA000...0xA4CF,    // Yi syllables and radicals
        0xA960...0xA97F,    // Hangul Jamo Extended-A
        0xAC00...0xD7A3,    // Hangul syllables
        0xF900...0xFAFF,    // CJK compatibility ideographs
        0xFE10...0xFE19,    // vertical forms
        0xFE30...0xFE6F,    // CJK compatibility forms, small form variants
        0xFF00...0xFF60,    // fullwidth forms
        0xFFE0...0xFFE6,    // fullwidth signs
        0x16FE0...0x16FE4,  // ideographic symbols and punctuation
        0x17000...0x18CFF,  // Tangut, Khitan
        0x1B000...0x1B2FF,  // Kana supplement and extensions, Nushu
        0x1F300...0x1F64F,  // miscellaneous symbols and pictographs, emoticons
        0x1F900...0x1F9FF,  // supplemental symbols and pictographs
        0x20000...0x2FFFD,  // CJK Unified Ideographs Extensions B–F, compatibility supplement
        0x30000...0x3FFFD,  // CJK Unified Ideographs Extensions G and H
    ]
}
