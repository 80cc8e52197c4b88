/// What libxml2's error codes (`xmlParserErrors`, in xmlerror.h) mean, in words for the person whose feed
/// it is: libxml2's own messages name its internals ("StartTag: invalid element name"), so they are only
/// the reason for the codes not listed here.
enum LibXML2Error {
    /// Warnings, and namespace errors (200…299), which do not stop reading: feeds in the wild use a prefix
    /// they forgot to declare, or an undeclared HTML entity under an RSS 0.91 DOCTYPE; the element or the
    /// entity is then just not recognised.
    static func isFatal(code: Int) -> Bool {
        let warnings: Set = [27, 93, 97, 98, 99, 100, 102, 106, 107]
        return !warnings.contains(code) && !(200..<300).contains(code)
    }

    /// Not libxml2's: `XMLEventParser` reports elements nested deeper than `FeedLimits.maximumDepth`
    /// with this code (libxml2's are positive).
    static let nestingTooDeep = -1

    /// Not libxml2's: bytes the document's encoding cannot convert, reported with this code and the
    /// encoding's name as the message. libxml2 raises the conversion failure outside the parser
    /// (`XML_I18N_CONV_FAILED`), and the parser then only says that the document ended early (5).
    static let undecodableBytes = -2

    /// The reason to give for `code`: ours when we have one, else libxml2's own `message`.
    static func reason(code: Int, message: String) -> String {
        switch code {
        case undecodableBytes:
            return "bytes that are not valid \(message), the feed's encoding; save the feed as UTF-8"
        case unsupportedEncoding:
            // libxml2's message: "Unsupported encoding NAME".
            let name = message.trimmingWhitespace().split(separator: " ", maxSplits: 2).dropFirst(2).first.map(String.init)
            return "the feed declares the encoding \(name.map { "“\($0)”" } ?? "it does"), which libxml2 on this system cannot "
                + "convert; save the feed as UTF-8 (UTF-16, ISO-8859-1 and what libxml2's converter knows, such as Shift_JIS, "
                + "are read too)"
        default:
            break
        }
        if let reason = reasons[code] { return reason }
        let message = message.trimmingWhitespace()
        return message.isEmpty ? "libxml2 error \(code)" : String(message)
    }

    /// `XML_ERR_UNSUPPORTED_ENCODING`: an encoding declaration libxml2 has no converter for.
    private static let unsupportedEncoding = 32

    private static let reasons: [Int: String] = [
        nestingTooDeep: "elements nest deeper than \(FeedLimits.maximumDepth) levels, the most a feed may",
        1: "libxml2 failed internally",
        2: "libxml2 ran out of memory",
        3: "the document does not start like XML",
        4: "the document is empty",
        5: "the document ends early, or has content after its root element",
        6: "an invalid hexadecimal character reference",
        7: "an invalid decimal character reference",
        8: "an invalid character reference",
        9: "a character XML does not allow, or bytes not in the document's encoding",
        23: "an entity reference lacks its “;”",
        26: "a reference to an undeclared entity",
        29: "a reference to an external entity",
        31: "an unknown encoding",
        34: "a quoted value is not closed",
        38: "“<” inside an attribute value",
        39: "an attribute value must be in quotes",
        40: "an attribute value is not closed",
        41: "an attribute has no value",
        42: "an attribute is given twice",
        45: "a comment is not closed",
        47: "a processing instruction is not closed",
        61: "the DOCTYPE is not closed",
        62: "“]]>” outside a CDATA section",
        63: "a CDATA section is not closed",
        65: "a space is required here",
        68: "a name is required here; a “&” or “<” in text must be written &amp; or &lt;",
        73: "expected “>”",
        74: "expected “</”",
        75: "expected “=” after an attribute name",
        76: "an end tag does not match its start tag",
        77: "a start tag is not finished",
        81: "bytes that are not in the document's encoding",
        85: "the elements are not well balanced",
        86: "content after the end of the document",
        89: "an entity refers to itself, directly or through others",
        110: "a name is too long",
    ]
}
