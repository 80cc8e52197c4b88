/// Checks UTF-8 a byte at a time (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF), so
/// a string can be checked whole while only its first bytes are kept.
struct UTF8Validator {
    /// Where the character being read started, for an error that names its first byte.
    private(set) var characterStart = 0
    /// Continuation bytes still expected, and the range the next one must be in.
    private var remaining = 0
    private var nextRange: ClosedRange<UInt8> = 0x80...0xBF

    /// Whether the bytes so far end with a whole character.
    var isBetweenCharacters: Bool { remaining == 0 }

    /// Takes the byte at `offset`; `false` when it makes the bytes no longer UTF-8.
    mutating func accepts(_ byte: UInt8, at offset: Int) -> Bool {
        if remaining > 0 {
            guard nextRange.contains(byte) else { return false }
            remaining -= 1
            nextRange = 0x80...0xBF
            return true
        }
        characterStart = offset
        switch byte {
        case 0x00...0x7F: return true
        case 0xC2...0xDF: remaining = 1
        case 0xE0: (remaining, nextRange) = (2, 0xA0...0xBF)
        case 0xED: (remaining, nextRange) = (2, 0x80...0x9F)
        case 0xE1...0xEF: remaining = 2
        case 0xF0: (remaining, nextRange) = (3, 0x90...0xBF)
        case 0xF4: (remaining, nextRange) = (3, 0x80...0x8F)
        case 0xF1...0xF3: remaining = 3
        default: return false
        }
        return true
    }
}
