import Testing
@testable import ThumbnailFeeds

/// Entity declarations are refused where libxml2 reads them, once it has decoded the document, so no
/// encoding hides one: not UTF-16 with or without a byte-order mark, not a declared UTF-7 (where `<!ENTITY`
/// is `+ADwAIQ-ENTITY`), not EBCDIC. Before, a scan of the raw bytes for `<!ENTITY` missed them all, and
/// libxml2 read such documents (a UTF-16LE or UTF-7 one came out as a feed).
@Suite struct EntityDeclarationEncodingTests {
    static let source = "https://example.com/feed.xml"

    /// A small quadratic entity, each `&b;` 8 × 16 characters, declaring `encoding`. The external DTD (never
    /// loaded) makes libxml2 take references to entities it does not know as warnings, not errors.
    static func bomb(declaring encoding: String) -> String {
        """
        <?xml version="1.0" encoding="\(encoding)"?>
        <!DOCTYPE rss SYSTEM "rss.dtd" [<!ENTITY a "xxxxxxxxxxxxxxxx"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>
        <rss version="2.0"><channel><title>&b;&b;</title>
        <item><title>&b;</title><enclosure url="https://example.com/a.jpg" type="image/jpeg"/></item>
        </channel></rss>
        """
    }

    /// The XML declaration in ASCII, so that libxml2 can read which encoding follows; the rest in UTF-7.
    static let utf7Document: [UInt8] = {
        let document = bomb(declaring: "UTF-7")
        let declarationEnd = document.firstIndex(of: "\n")!
        return Array(document[..<declarationEnd].utf8) + Transcoding.encode(String(document[declarationEnd...]), as: "UTF-7")
    }()

    static let documents: [EncodedDocument] = [
        EncodedDocument("UTF-16LE with a byte-order mark", [0xFF, 0xFE] + Transcoding.encode(bomb(declaring: "UTF-16"), as: "UTF-16LE")),
        EncodedDocument("UTF-16LE without a byte-order mark", Transcoding.encode(bomb(declaring: "UTF-16"), as: "UTF-16LE")),
        EncodedDocument("UTF-16BE with a byte-order mark", [0xFE, 0xFF] + Transcoding.encode(bomb(declaring: "UTF-16"), as: "UTF-16BE")),
        EncodedDocument("UTF-16BE without a byte-order mark", Transcoding.encode(bomb(declaring: "UTF-16"), as: "UTF-16BE")),
        EncodedDocument("UTF-7", utf7Document),
        EncodedDocument("EBCDIC (IBM037)", Transcoding.encode(bomb(declaring: "IBM037"), as: "IBM037")),
    ]

    @Test(arguments: documents)
    func anEntityDeclarationIsRefusedWhateverTheEncoding(document: EncodedDocument) {
        // At the end of the first declaration, `<!ENTITY a "xxxxxxxxxxxxxxxx">`, counted in characters.
        #expect(throws: FeedError.unsafeXML(line: 2, column: 62, reason: "the DOCTYPE declares the entity “a”, refused: "
            + "feeds do not need entities, and they can make a small document expand to gigabytes or read local files")) {
            try FeedParser().parse(document.bytes, source: Self.source)
        }
    }

    @Test(arguments: documents)
    func libxml2StopsAtTheDeclarationAndReportsNothingAfterIt(document: EncodedDocument) throws {
        let recorder = XMLEventRecorder()
        try XMLEventParser.parse(FeedBytes(document.bytes), reportingTo: recorder)
        #expect(recorder.events == ["refused entity a at 2:62"])
    }
}

/// A document's bytes, named in test results by their encoding.
struct EncodedDocument: CustomTestStringConvertible, Sendable {
    let encoding: String
    let bytes: [UInt8]

    init(_ encoding: String, _ bytes: [UInt8]) {
        self.encoding = encoding
        self.bytes = bytes
    }

    var testDescription: String { encoding }
}

/// Every event `XMLEventParser` reports, as text, up to the first error fatal to a feed, where it asks
/// to stop as `XMLFeedReader` does.
final class XMLEventRecorder: XMLEventHandler {
    private(set) var events: [String] = []
    private(set) var isFinished = false

    func startElement(_ element: XMLName, prefix: String?, attributes: [String: String]) {
        events.append("<\(element.local)>")
    }

    func endElement() {
        events.append("</>")
    }

    func text(_ bytes: UnsafeBufferPointer<UInt8>) {
        events.append("text \(String(decoding: bytes, as: UTF8.self))")
    }

    func error(code: Int, message: String, line: Int, column: Int) {
        guard LibXML2Error.isFatal(code: code) else { return }
        events.append("error \(code) at \(line):\(column)")
        isFinished = true
    }

    func refusedEntityDeclaration(named name: String, line: Int, column: Int) {
        events.append("refused entity \(name) at \(line):\(column)")
    }
}
