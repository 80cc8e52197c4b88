/// Text made safe to print on a terminal: everything a terminal would act on
/// instead of showing becomes a visible escape.
///
/// Feeds, servers and file names are written by strangers. Printed raw, an
/// `ESC ] 52` sets the clipboard, `ESC ] 0` the window title, `ESC [ 2J`
/// clears the screen, a C1 `U+009B` starts a control sequence on its own,
/// and a bidi control reorders the rest of the line. Every path that puts
/// such text on a terminal (`warm`'s summary and progress, `thumb`'s lines,
/// `cache`'s output, `browse`'s screen, error lines) goes through
/// ``escaped(_:)``; `--json` output escapes the same scalars as `\u001b`.
///
/// The escapes, one form each, so the output reads back unambiguously:
/// - `\u{1B}`: a code point (at least two uppercase hex digits, as in Swift)
///   that is a C0 control (U+0000–U+001F, newline and tab included), DEL
///   (U+007F), a C1 control (U+0080–U+009F), a line or paragraph separator
///   (U+2028, U+2029: line breaks to some terminals and viewers) or a bidi
///   control (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069);
/// - `\xFF`: a byte that is not part of valid UTF-8 (two uppercase hex digits),
///   only from ``escaped(utf8:)``;
/// - `\\`: a backslash, so that no text can pass for an escape.
///
/// Everything else, wide and combining characters included, is kept as it is.
package enum TerminalText {
    /// `text` with every control character, bidi control and backslash escaped.
    package static func escaped(_ text: some StringProtocol) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars { append(scalar, to: &result) }
        return result
    }

    /// `bytes` read as UTF-8: bytes that are not valid UTF-8 as `\xHH`, the
    /// rest as ``escaped(_:)`` does. For bytes from C or the file system,
    /// which need not be UTF-8; decoding them with replacement first would
    /// lose which bytes they were.
    package static func escaped<Bytes: Collection<UInt8>>(utf8 bytes: Bytes) -> String {
        var result = ""
        result.reserveCapacity(bytes.count)
        var start = bytes.startIndex
        while start != bytes.endIndex {
            var iterator = bytes[start...].makeIterator()
            var parser = Unicode.UTF8.ForwardParser()
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                append(Unicode.UTF8.decode(encoded), to: &result)
                start = bytes.index(start, offsetBy: encoded.count)
            case .error(let length):
                for byte in bytes[start...].prefix(length) { result += "\\x" + hex(byte, digits: 2) }
                start = bytes.index(start, offsetBy: length)
            case .emptyInput:
                start = bytes.endIndex
            }
        }
        return result
    }

    /// Whether a terminal acts on `scalar` rather than showing it: C0 and C1
    /// controls, DEL, the line and paragraph separators and the bidi controls.
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x2028, 0x2029: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func append(_ scalar: Unicode.Scalar, to result: inout String) {
        if isControl(scalar) {
            result += "\\u{" + hex(scalar.value, digits: 2) + "}"
        } else if scalar == "\\" {
            result += "\\\\"
        } else {
            result.unicodeScalars.append(scalar)
        }
    }

    /// Uppercase hex, zero-padded to `digits`.
    private static func hex(_ value: some BinaryInteger, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
