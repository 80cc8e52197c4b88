/// Turns bytes read from a terminal in raw mode into ``Key``s: j/k and the
/// arrows, PgUp/PgDn and space, g/G and Home/End, r, q and Ctrl-C. An escape
/// sequence split across reads is kept until it is complete; an unknown one,
/// or a string the terminal sent (a late reply to a graphics query), is
/// dropped whole, never leaked as characters. A lone escape is told from
/// the start of a sequence by time: see ``flushPendingEscape(at:)``.
package struct KeyDecoder: Sendable {
    /// The escape sequence begun and not complete yet, ESC first; at most ``longestSequence`` bytes.
    private var pending: [UInt8] = []
    /// The rest of a sequence too long to be a key, or of a string, dropped byte by byte as it comes:
    /// kept whole, an endless one would grow without bound and be searched again on every read.
    private var skipping: Skipping?
    /// When the last read came, given to ``decode(_:at:)``: the bytes held, if any, came then or before.
    private var lastReadAt: ContinuousClock.Instant?

    /// How long the rest of an escape sequence may take to come after its last byte: past it, an escape
    /// held alone was the Esc key (or a sequence whose rest never came). A terminal writes a sequence
    /// at once; one split across reads (a full buffer, a slow link) goes on within milliseconds.
    package static let escapeTimeout: Duration = .milliseconds(100)

    /// The longest control sequence kept whole; keys are at most 3 bytes after `ESC [`. Longer ones
    /// (mouse reports, replies) are dropped as they come.
    static let longestSequence = 32

    private enum Skipping: Sendable {
        /// A control sequence (CSI), up to its final byte.
        case controlSequence
        /// A string the terminal sends (APC, DCS, OSC), up to ESC \ or, for OSC, BEL; `afterEscape`
        /// when the byte before was ESC.
        case string(endsAtBell: Bool, afterEscape: Bool)

        /// What is still to drop after `byte`; `nil` when `byte` ended it.
        func after(_ byte: UInt8) -> Skipping? {
            switch self {
            case .controlSequence:
                return (0x40...0x7E).contains(byte) ? nil : self
            case let .string(endsAtBell, afterEscape):
                if (endsAtBell && byte == 0x07) || (afterEscape && byte == UInt8(ascii: "\\")) { return nil }
                return .string(endsAtBell: endsAtBell, afterEscape: byte == 0x1B)
            }
        }
    }

    package init() {}

    /// How many bytes the decoder holds for a sequence not complete yet: at most ``longestSequence``.
    var heldByteCount: Int { pending.count }

    /// The keys `bytes` complete.
    package mutating func decode(_ bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        for byte in bytes {
            if let skipped = skipping {
                skipping = skipped.after(byte)
            } else if !pending.isEmpty {
                pending.append(byte)
                if let key = continueSequence() { keys.append(key) }
            } else if byte == 0x1B {
                pending = [byte]
            } else if let key = Self.plainKey(byte) {
                keys.append(key)
            }
        }
        return keys
    }

    /// The keys `bytes`, read at `now`, complete; `now` is what ``flushPendingEscape(at:)`` measures from.
    package mutating func decode(_ bytes: [UInt8], at now: ContinuousClock.Instant) -> [Key] {
        if !bytes.isEmpty { lastReadAt = now }
        return decode(bytes)
    }

    /// ``flushPendingEscape()`` once no byte has come for ``escapeTimeout``
    /// since the last read given to ``decode(_:at:)``; before, nothing. A
    /// caller that flushes on a timer then never cuts a sequence whose rest is
    /// still on its way, however the reads and the timer interleave.
    package mutating func flushPendingEscape(at now: ContinuousClock.Instant) -> [Key] {
        guard let lastReadAt, now - lastReadAt >= Self.escapeTimeout else { return [] }
        return flushPendingEscape()
    }

    /// Drops a lone escape (the Esc key, or a sequence whose rest never
    /// came) and stops dropping a string whose end never came, at once (at
    /// the end of the input; on a timer, see ``flushPendingEscape(at:)``).
    /// Returns the keys that were waiting behind the escape.
    package mutating func flushPendingEscape() -> [Key] {
        skipping = nil
        guard !pending.isEmpty else { return [] }
        let rest = Array(pending.dropFirst())
        pending = []
        return decode(rest)
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

    /// The key the byte just added to `pending` completes, if any; `pending` is emptied when the
    /// sequence is complete (`nil` key: complete but unknown) or the rest is to be dropped.
    private mutating func continueSequence() -> Key? {
        switch pending[1] {
        case UInt8(ascii: "["):
            // CSI: parameters and intermediates, then a final byte in 0x40…0x7E.
            guard pending.count > 2, let final = pending.last, (0x40...0x7E).contains(final) else {
                if pending.count == Self.longestSequence {
                    pending = []
                    skipping = .controlSequence
                }
                return nil
            }
            let body = String(decoding: pending[2...], as: UTF8.self)
            pending = []
            return switch body {
            case "A": .up
            case "B": .down
            case "H", "1~", "7~": .top
            case "F", "4~", "8~": .bottom
            case "5~": .pageUp
            case "6~": .pageDown
            default: nil
            }
        case UInt8(ascii: "O"):
            guard pending.count == 3 else { return nil }
            defer { pending = [] }
            return switch pending[2] {
            case UInt8(ascii: "A"): .up
            case UInt8(ascii: "B"): .down
            case UInt8(ascii: "H"): .top
            case UInt8(ascii: "F"): .bottom
            default: nil
            }
        case UInt8(ascii: "_"), UInt8(ascii: "P"), UInt8(ascii: "]"):
            // A string a terminal sends (APC, DCS, OSC: a graphics reply that came after the
            // detection gave up): dropped whole, never read as keys.
            skipping = .string(endsAtBell: pending[1] == UInt8(ascii: "]"), afterEscape: false)
            pending = []
            return nil
        default:
            pending = []
            return nil  // Alt+key: ignored
        }
    }
}
