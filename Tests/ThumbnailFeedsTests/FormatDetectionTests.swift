import Foundation
import Testing
import ThumbnailFeeds

/// The format comes from the content, never from the source's name.
@Suite struct FormatDetectionTests {
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    @Test func rssFromASourceNamedJSONIsReadAsRSS() throws {
        let feed = try FeedParser().parse(RSSParsingTests.harbourFeed, source: "https://photos.example.net/feed.json")
        #expect(feed.format == .rss)
    }

    @Test func aJSONFeedFromASourceNamedXMLIsReadAsAJSONFeed() throws {
        let feed = try FeedParser().parse(JSONFeedParsingTests.catsFeed, source: "/srv/feeds/atom.xml")
        #expect(feed.format == .jsonFeed)
    }

    @Test(arguments: [(JSONFeedParsingTests.catsFeed, FeedFormat.jsonFeed), (RSSParsingTests.harbourFeed, .rss),
                      (AtomParsingTests.alpineFeed, .atom), (PlainJSONParsingTests.photoList, .plainJSON)])
    func aByteOrderMarkAndLeadingWhitespaceAreSkipped(document: String, format: FeedFormat) throws {
        let bytes = Self.byteOrderMark + Array(" \r\n\t\n".utf8) + Array(document.utf8)
        let feed = try FeedParser().parse(bytes, source: "https://example.com/feed")
        #expect(feed.format == format)
        #expect(!feed.items.isEmpty)
    }

    @Test func anObjectWhoseVersionIsNotJSONFeedsIsPlainJSON() throws {
        let feed = try FeedParser().parse(#"{"version": "2.1", "items": ["a.jpg"]}"#, source: "https://example.com/api")
        #expect(feed.format == .plainJSON)
    }

    @Test(arguments: [
        ("", "the document is empty"),
        (" \n\t ", "the document is empty"),
        ("Not Found", "the document starts with “N”, neither JSON (“{” or “[”) nor XML (“<”)"),
        ("<!DOCTYPE html><html><head><meta charset=utf-8><title>Home</title></head></html>",
         "this is an HTML page, not a feed"),
        (#"<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><item/></rdf:RDF>"#,
         "the XML root element is <rdf:RDF>, not RSS 2.0's <rss> or Atom's <feed>"),
    ])
    func otherDocumentsAreUnrecognized(document: String, reason: String) {
        #expect(throws: FeedError.unrecognized(reason: reason)) {
            try FeedParser().parse(document, source: "https://example.com/feed")
        }
    }

    @Test func jsonInUTF16IsUnrecognizedWithWhatToDo() {
        let utf16 = [0xFF, 0xFE] + Transcoding.encode(#"["a.jpg"]"#, as: "UTF-16LE")
        #expect(throws: FeedError.unrecognized(
            reason: "the document is UTF-16 (it starts with a UTF-16 byte-order mark); save it as UTF-8")) {
            try FeedParser().parse(utf16, source: "https://example.com/feed")
        }
    }

    /// FF FE 00 00 starts with UTF-16's mark, and 00 00 FE FF with a zero byte: both are UTF-32's.
    @Test(arguments: [("UTF-32LE", [0xFF, 0xFE, 0x00, 0x00] as [UInt8]), ("UTF-32BE", [0x00, 0x00, 0xFE, 0xFF])])
    func jsonOrXMLInUTF32IsNamedUTF32(encoding: String, byteOrderMark: [UInt8]) {
        for text in [#"["a.jpg"]"#, #"<rss version="2.0"/>"#] {
            #expect(throws: FeedError.unrecognized(
                reason: "the document is UTF-32 (it starts with a UTF-32 byte-order mark); save it as UTF-8")) {
                try FeedParser().parse(byteOrderMark + Transcoding.encode(text, as: encoding), source: "https://example.com/feed")
            }
        }
    }

    /// RSSParsingTests' feed, declaring `encoding`.
    static func harbourFeed(declaring encoding: String) -> String {
        RSSParsingTests.harbourFeed.replacingOccurrences(of: #"encoding="UTF-8""#, with: #"encoding="\#(encoding)""#)
    }

    /// XML in the encodings libxml2 tells from the first bytes, which do not start with the byte `<`.
    @Test(arguments: [
        EncodedDocument("UTF-16LE with a byte-order mark",
                        [0xFF, 0xFE] + Transcoding.encode(harbourFeed(declaring: "UTF-16"), as: "UTF-16LE")),
        EncodedDocument("UTF-16BE with a byte-order mark",
                        [0xFE, 0xFF] + Transcoding.encode(harbourFeed(declaring: "UTF-16"), as: "UTF-16BE")),
        EncodedDocument("UTF-16BE without a byte-order mark", Transcoding.encode(harbourFeed(declaring: "UTF-16"), as: "UTF-16BE")),
        EncodedDocument("EBCDIC (IBM037)", Transcoding.encode(harbourFeed(declaring: "IBM037"), as: "IBM037")),
    ])
    func xmlInUTF16OrEBCDICIsRead(document: EncodedDocument) throws {
        let feed = try FeedParser().parse(document.bytes, source: RSSParsingTests.source)
        #expect(feed == (try FeedParser().parse(RSSParsingTests.harbourFeed, source: RSSParsingTests.source)))
    }

    @Test func anImageInsteadOfAFeedIsUnrecognized() {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        #expect(throws: FeedError.unrecognized(
            reason: "the document starts with the byte 0x89, neither JSON (“{” or “[”) nor XML (“<”)")) {
            try FeedParser().parse(png, source: "https://example.com/feed")
        }
    }

    @Test func aByteOrderMarkAloneIsAnEmptyDocument() {
        #expect(throws: FeedError.unrecognized(reason: "the document is empty")) {
            try FeedParser().parse(Self.byteOrderMark, source: "https://example.com/feed")
        }
    }
}
