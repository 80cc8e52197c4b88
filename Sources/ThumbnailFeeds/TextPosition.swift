/// A line and column in a document, both counted from 1, as an editor shows them.
struct TextPosition: Equatable {
    var line: Int
    var column: Int

    /// The position of the byte at `offset` (or of the end, when `offset == bytes.count`).
    ///
    /// Columns count characters (Unicode scalars), not bytes, and a leading UTF-8 byte-order mark is not
    /// counted, which is what editors and libxml2 (for the XML errors) show. `\n`, `\r\n` and a lone `\r`
    /// each end a line.
    init(offset: Int, in bytes: [UInt8]) {
        var line = 1
        var lineStart = bytes.starts(with: UTF8.byteOrderMark) ? min(UTF8.byteOrderMark.count, offset) : 0
        var index = lineStart
        while index < offset {
            let byte = bytes[index]
            index += 1
            let endsLine = byte == UInt8(ascii: "\n")
                || (byte == UInt8(ascii: "\r") && (index == bytes.count || bytes[index] != UInt8(ascii: "\n")))
            if endsLine {
                line += 1
                lineStart = index
            }
        }
        // UTF-8 continuation bytes (10xxxxxx) belong to the character before them.
        let characters = bytes[lineStart..<offset].count { $0 & 0b1100_0000 != 0b1000_0000 }
        self.line = line
        self.column = characters + 1
    }
}

extension UTF8 {
    /// EF BB BF, which some editors put at the start of UTF-8 files.
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
}
