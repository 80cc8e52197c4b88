/// A line and column in a document, both counted from 1, as an editor shows them.
struct TextPosition: Equatable {
    var line: Int
    var column: Int

    /// The position of the byte at `offset` in `document` (or of the end, when `offset` is its count),
    /// read again from its start in pieces.
    ///
    /// Columns count characters (Unicode scalars), not bytes, and a leading UTF-8 byte-order mark is not
    /// counted, which is what editors and libxml2 (for the XML errors) show. `\n`, `\r\n` and a lone `\r`
    /// each end a line.
    init(offset: Int, in document: FeedBytes) throws(FeedError) {
        let skipped = try document.bytes(in: 0..<UTF8.byteOrderMark.count).starts(with: UTF8.byteOrderMark)
            ? min(UTF8.byteOrderMark.count, offset) : 0
        var line = 1
        var characters = 0
        var position = skipped
        // A `\r` ends a line unless a `\n` follows, which then ends it.
        var afterCarriageReturn = false
        try document.forEachChunk(from: skipped) { chunk in
            for byte in chunk {
                guard position < offset else { return false }
                if afterCarriageReturn, byte != UInt8(ascii: "\n") {
                    line += 1
                    characters = 0
                }
                afterCarriageReturn = byte == UInt8(ascii: "\r")
                position += 1
                if byte == UInt8(ascii: "\n") {
                    line += 1
                    characters = 0
                } else if byte & 0b1100_0000 != 0b1000_0000 {
                    // UTF-8 continuation bytes (10xxxxxx) belong to the character before them.
                    characters += 1
                }
            }
            return position < offset
        }
        if afterCarriageReturn, try document.bytes(in: offset..<offset + 1) != [UInt8(ascii: "\n")] {
            line += 1
            characters = 0
        }
        self.init(line: line, column: characters + 1)
    }

    init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
}

extension UTF8 {
    /// EF BB BF, which some editors put at the start of UTF-8 files.
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
}
