/// Turns bytes read from a terminal in raw mode into ``Key``s: j/k and the
/// arrows, PgUp/PgDn and space, g/G and Home/End, r, q and Ctrl-C. An escape
/// sequence split across reads is kept until it is complete; an unknown one,
/// or a string the terminal sent (a late reply to a graphics query), is
/// dropped whole, never leaked as characters.
public struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []

    public init() {}

    /// The keys `bytes` complete.
    public mutating func decode(_ bytes: [UInt8]) -> [Key] {
        pending += bytes
        var keys: [Key] = []
        while let first = pending.first {
            if first == 0x1B {
                guard let (key, length) = Self.escapeSequence(pending) else { break }  // incomplete: wait for more
                pending.removeFirst(length)
                if let key { keys.append(key) }
                continue
            }
            pending.removeFirst()
            if let key = Self.plainKey(first) { keys.append(key) }
        }
        return keys
    }

    /// Drops a lone escape (the Esc key, or a sequence whose rest never
    /// came); the caller calls this when no byte has come for a moment.
    /// Returns the keys that were waiting behind it.
    public mutating func flushPendingEscape() -> [Key] {
        guard pending.first == 0x1B else { return [] }
        pending.removeFirst()
        return decode([])
    }

    private static func plainKey(_ byte: UInt8) -> Key? {
        switch byte {
        case UInt8(ascii: "j"): .down
        case UInt8(ascii: "k"): .up
        case UInt8(ascii: " "): .pageDown
        case UInt8(ascii: "g"): .top
        case UInt8(ascii: "G"): .bottom
        case UInt8(ascii: "r"): .retry
        case UInt8(ascii: "q"), 0x03: .quit
        case 0x20...0x7E: .character(Character(UnicodeScalar(byte)))
        default: nil
        }
    }

    /// The key and length of the escape sequence at the start of `bytes`
    /// (`nil` key: complete but unknown); `nil` when it is not complete yet.
    private static func escapeSequence(_ bytes: [UInt8]) -> (Key?, Int)? {
        guard bytes.count >= 2 else { return nil }
        switch bytes[1] {
        case UInt8(ascii: "["):
            // CSI: parameters and intermediates, then a final byte in 0x40…0x7E.
            guard let end = bytes.dropFirst(2).firstIndex(where: { (0x40...0x7E).contains($0) }) else { return nil }
            let body = String(decoding: bytes[2...end], as: UTF8.self)
            let key: Key? = switch body {
            case "A": .up
            case "B": .down
            case "H", "1~", "7~": .top
            case "F", "4~", "8~": .bottom
            case "5~": .pageUp
            case "6~": .pageDown
            default: nil
            }
            return (key, end + 1)
        case UInt8(ascii: "O"):
            guard bytes.count >= 3 else { return nil }
            let key: Key? = switch bytes[2] {
            case UInt8(ascii: "A"): .up
            case UInt8(ascii: "B"): .down
            case UInt8(ascii: "H"): .top
            case UInt8(ascii: "F"): .bottom
            default: nil
            }
            return (key, 3)
        case UInt8(ascii: "_"), UInt8(ascii: "P"), UInt8(ascii: "]"):
            // A string a terminal sends (APC, DCS, OSC: a graphics reply that came after the
            // detection gave up), up to ESC \ (or BEL for OSC): dropped whole, never read as keys.
            var index = 2
            while index < bytes.count {
                if bytes[index] == 0x07, bytes[1] == UInt8(ascii: "]") { return (nil, index + 1) }
                if bytes[index] == 0x1B, index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\\") { return (nil, index + 2) }
                index += 1
            }
            return nil
        default:
            return (nil, 2)  // Alt+key: ignored
        }
    }
}
