import Testing
import ThumbnailFeeds

/// A feed in the encoding its XML declaration names is read in it, and one with bytes that encoding
/// cannot convert is refused by the encoding's name. (Before, libxml2's conversion failure was raised
/// outside the parser and dropped, and a Shift_JIS feed with one stray byte was reported as "the
/// document ends early, or has content after its root element".)
@Suite struct DeclaredEncodingTests {
    static let source = "https://example.com/feed.xml"

    /// A small RSS feed with Japanese titles, declaring `encoding`, in it.
    static func feed(declaring encoding: String, strayBytes: [UInt8] = []) -> [UInt8] {
        let head = Transcoding.encode("""
            <?xml version="1.0" encoding="\(encoding)"?>
            <rss version="2.0"><channel><title>写真の
            """, as: encoding)
        let tail = Transcoding.encode("""
            フィード</title>
            <item><title>富士山</title><enclosure url="https://example.com/fuji.jpg" type="image/jpeg"/></item>
            </channel></rss>
            """, as: encoding)
        return head + strayBytes + tail
    }

    @Test(arguments: ["Shift_JIS", "EUC-JP", "ISO-2022-JP"])
    func aJapaneseFeedIsReadInTheEncodingItDeclares(encoding: String) throws {
        let feed = try FeedParser().parse(Self.feed(declaring: encoding), source: Self.source)
        #expect(feed.title == "写真のフィード")
        #expect(feed.items.map(\.title) == ["富士山"])
        #expect(feed.items.first?.imageURLs == ["https://example.com/fuji.jpg"])
    }

    /// 0xFD is no lead byte in Shift_JIS, nor in EUC-JP: reported where it stands, after "写真の".
    @Test(arguments: ["Shift_JIS", "EUC-JP"])
    func bytesTheDeclaredEncodingCannotConvertAreNamedAsSuch(encoding: String) {
        #expect(throws: FeedError.malformedXML(
            line: 2, column: 39, reason: "bytes that are not valid \(encoding), the feed's encoding; save the feed as UTF-8")) {
            try FeedParser().parse(Self.feed(declaring: encoding, strayBytes: [0xFD]), source: Self.source)
        }
    }

    @Test func anEncodingLibxml2CannotConvertIsNamed() {
        let document = Array(#"<?xml version="1.0" encoding="x-martian"?><rss version="2.0"/>"#.utf8)
        #expect(throws: FeedError.malformedXML(
            line: 1, column: 41,
            reason: "the feed declares the encoding “x-martian”, which libxml2 on this system cannot convert; save the "
                + "feed as UTF-8 (UTF-16, ISO-8859-1 and what libxml2's converter knows, such as Shift_JIS, are read too)")) {
            try FeedParser().parse(document, source: Self.source)
        }
    }
}
