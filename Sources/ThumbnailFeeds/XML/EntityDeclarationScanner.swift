/// Finds entity declarations (`<!ENTITY`) in a document's DOCTYPE before libxml2 parses it.
///
/// libxml2 2.9 stops the "billion laughs" (nested entities), but not one large entity referenced many
/// times: 100 000 references to a 100 KB entity kept it busy for 8 s here, and the work grows with the
/// product. `XMLParser` also always asks libxml2 to substitute entities. Feeds never need entities of
/// their own, so documents that declare any are refused instead of parsed; this also keeps external
/// entities (`SYSTEM "file:///…"`) away from the parser entirely.
enum EntityDeclarationScanner {
    /// The byte offset of the first `<!ENTITY` in the internal DTD subset, or `nil` when there is none.
    ///
    /// Only the prolog is scanned (XML declaration, comments, processing instructions, DOCTYPE), so the text
    /// `<!ENTITY` inside an element's CDATA is not mistaken for a declaration. A prolog that is not
    /// well-formed is left to libxml2 to report.
    static func firstEntityDeclaration(in bytes: [UInt8]) -> Int? {
        var offset = bytes.starts(with: UTF8.byteOrderMark) ? UTF8.byteOrderMark.count : 0
        while offset < bytes.count {
            if isWhitespace(bytes[offset]) {
                offset += 1
            } else if let end = end(of: "<?", closedBy: "?>", at: offset, in: bytes)
                        ?? end(of: "<!--", closedBy: "-->", at: offset, in: bytes) {
                offset = end
            } else if starts(with: "<!DOCTYPE", at: offset, in: bytes) {
                return entityDeclaration(inDoctypeAt: offset, in: bytes)
            } else {
                return nil
            }
        }
        return nil
    }

    /// Scans a DOCTYPE's internal subset (`[…]`), skipping quoted literals, comments and processing instructions.
    private static func entityDeclaration(inDoctypeAt start: Int, in bytes: [UInt8]) -> Int? {
        var offset = start
        var inSubset = false
        while offset < bytes.count {
            if inSubset, starts(with: "<!ENTITY", at: offset, in: bytes) {
                return offset
            }
            if inSubset, let end = end(of: "<!--", closedBy: "-->", at: offset, in: bytes)
                ?? end(of: "<?", closedBy: "?>", at: offset, in: bytes) {
                offset = end
                continue
            }
            switch bytes[offset] {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                let quote = bytes[offset]
                guard let close = bytes[(offset + 1)...].firstIndex(of: quote) else { return nil }
                offset = close + 1
            case UInt8(ascii: "["):
                inSubset = true
                offset += 1
            case UInt8(ascii: "]"):
                inSubset = false
                offset += 1
            case UInt8(ascii: ">") where !inSubset:
                return nil
            default:
                offset += 1
            }
        }
        return nil
    }

    /// The offset after `closing` when a construct opened by `opening` starts at `offset`; the end of the
    /// input when it is never closed, so the caller stops.
    private static func end(of opening: String, closedBy closing: String, at offset: Int, in bytes: [UInt8]) -> Int? {
        guard starts(with: opening, at: offset, in: bytes) else { return nil }
        var index = offset + opening.utf8.count
        while index < bytes.count {
            if starts(with: closing, at: index, in: bytes) { return index + closing.utf8.count }
            index += 1
        }
        return bytes.count
    }

    private static func starts(with text: String, at offset: Int, in bytes: [UInt8]) -> Bool {
        bytes[offset...].starts(with: text.utf8)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
