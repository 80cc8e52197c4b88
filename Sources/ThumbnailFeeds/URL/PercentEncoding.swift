/// Percent-encoding (RFC 3986 section 2.1): a byte as `%` and two upper-case hex digits.
enum PercentEncoding {
    /// `text` with every UTF-8 byte that `isAllowed` refuses percent-encoded. An existing escape (`%`
    /// and two hex digits) is kept as written when `keepingEscapes`; any other `%` is encoded as `%25`.
    static func escaping(_ text: some StringProtocol, keeping isAllowed: (UInt8) -> Bool, keepingEscapes: Bool = true) -> String {
        escaping(Array(text.utf8), keeping: isAllowed, keepingEscapes: keepingEscapes)
    }

    static func escaping(_ bytes: [UInt8], keeping isAllowed: (UInt8) -> Bool, keepingEscapes: Bool = true) -> String {
        var escaped: [UInt8] = []
        escaped.reserveCapacity(bytes.count)
        for (index, byte) in bytes.enumerated() {
            let keeps = byte == UInt8(ascii: "%")
                ? keepingEscapes && escapedByte(in: bytes, at: index) != nil
                : isAllowed(byte)
            if keeps {
                escaped.append(byte)
            } else {
                escaped += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: escaped, as: UTF8.self)
    }

    /// The bytes `text` spells, with each `%` and two hex digits decoded; any other `%` stays as it is.
    static func decoding(_ text: some StringProtocol) -> [UInt8] {
        let bytes = Array(text.utf8)
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if let byte = escapedByte(in: bytes, at: index) {
                decoded.append(byte)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return decoded
    }

    /// What a path may hold unencoded: RFC 3986's unreserved characters, sub-delimiters, `:`, `@` and `/`.
    /// It is also what `URL(filePath:)` leaves unencoded in a file URL.
    static func isPathCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "-._~!$&'()*+,;=:@/".utf8.contains(byte)
        }
    }

    /// What a query or a fragment may hold unencoded: what a path may, and `?`.
    static func isQueryCharacter(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "?") || isPathCharacter(byte)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// The byte the escape at `index` stands for, when `bytes[index...]` starts with `%` and two hex digits.
    private static func escapedByte(in bytes: [UInt8], at index: Int) -> UInt8? {
        guard bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
              let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else { return nil }
        return high << 4 | low
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
