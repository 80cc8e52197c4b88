import Testing
import ThumbnailFeeds

/// Malformed, truncated and empty feeds give typed errors that say where.
@Suite struct FeedErrorTests {
    static let source = "https://example.com/feed"

    @Test func malformedJSONReportsTheLineAndColumnOfTheFirstError() {
        let document = """
            {
              "version": "https://jsonfeed.org/version/1.1",
              "title": "Trailing commas",
              "items": [
                {"id": "1", "image": "a.jpg",}
              ]
            }
            """
        #expect(throws: FeedError.malformedJSON(line: 5, column: 34,
                                                reason: "expected a member name in double quotes, found “}”")) {
            try FeedParser().parse(document, source: Self.source)
        }
    }

    @Test func jsonColumnsCountCharactersNotBytes() {
        // "Café ☕" takes 9 bytes for 6 characters: by bytes the 2 would be at column 36.
        #expect(throws: FeedError.malformedJSON(line: 1, column: 33,
                                                reason: "expected “,” or “]” after an array element, found “2”")) {
            try FeedParser().parse(#"{"title": "Café ☕", "items": [1 2]}"#, source: Self.source)
        }
    }

    @Test func jsonLinesEndAtCRLFAndAtLoneCR() {
        #expect(throws: FeedError.malformedJSON(line: 3, column: 6, reason: "expected “true”, found “]”")) {
            try FeedParser().parse("[\r\n\"a.jpg\",\r  tru]", source: Self.source)
        }
    }

    @Test(arguments: [
        (#"["a.jpg" "b.jpg"]"#, 1, 10, "expected “,” or “]” after an array element, found “\"”"),
        (#"{"a": 01}"#, 1, 8, "a number may not start with a 0 followed by digits"),
        (#"["a\qb"]"#, 1, 5, "“\\q” is not a JSON escape sequence"),
        (#"["\ud83d"]"#, 1, 3, "\\uD83D is half of a UTF-16 surrogate pair without its other half"),
        ("[\"a\tb\"]", 1, 4, "a control character (U+0009) inside a string; JSON needs it escaped"),
        (#"["a.jpg"] x"#, 1, 11, "expected the end of the document after the JSON value, found “x”"),
        (#"{"a" 1}"#, 1, 6, "expected “:” after the member name, found “1”"),
        ("[\"abc", 1, 6, "the string that starts at line 1, column 2 is not closed"),
    ])
    func jsonSyntaxErrorsSayWhatWasExpected(document: String, line: Int, column: Int, reason: String) {
        #expect(throws: FeedError.malformedJSON(line: line, column: column, reason: reason)) {
            try FeedParser().parse(document, source: Self.source)
        }
    }

    @Test func bytesThatAreNotUTF8InAJSONStringAreAnError() {
        let bytes = Array(#"["caf"#.utf8) + [0xE9] + Array(#".jpg"]"#.utf8)
        #expect(throws: FeedError.malformedJSON(line: 1, column: 6, reason: "the byte 0xE9 inside a string is not UTF-8")) {
            try FeedParser().parse(bytes, source: Self.source)
        }
    }

    @Test func escapedCharactersIncludingSurrogatePairsAreDecoded() throws {
        let feed = try FeedParser().parse(#"[{"title": "\u00e9t\u00e9 \ud83d\udcf7 \"q\"", "url": "a\/b.jpg"}]"#, source: Self.source)
        #expect(feed.items == [FeedItem(title: "été 📷 \"q\"", imageURLs: ["https://example.com/a/b.jpg"])])
    }

    @Test func nestingUpToTheLimitIsReadAndDeeperIsAnError() throws {
        let limit = 512
        let atLimit = "[\"a.jpg\"," + String(repeating: "[", count: limit - 1) + String(repeating: "]", count: limit)
        #expect(throws: FeedError.unexpectedStructure(path: "$[1]", reason: "expected an image URL or an object, found an array")) {
            try FeedParser().parse(atLimit, source: Self.source)
        }
        let tooDeep = String(repeating: "[", count: 100_000)
        #expect(throws: FeedError.malformedJSON(line: 1, column: limit + 1,
                                                reason: "arrays and objects nest deeper than 512 levels")) {
            try FeedParser().parse(tooDeep, source: Self.source)
        }
    }

    @Test func malformedXMLReportsLibxml2sLineAndColumn() {
        let document = """
            <?xml version="1.0"?>
            <rss version="2.0">
              <channel>
                <title>Broken</titel>
              </channel>
            </rss>
            """
        // libxml2 places a mismatched end tag's error just after that tag.
        #expect(throws: FeedError.malformedXML(line: 4, column: 26, reason: "an end tag does not match its start tag")) {
            try FeedParser().parse(document, source: Self.source)
        }
    }

    @Test func xmlPositionsCountTheSkippedByteOrderMarkAndBlankLines() {
        let bytes = FormatDetectionTests.byteOrderMark + Array("\n\n  <rss><channel></chanel></rss>".utf8)
        #expect(throws: FeedError.malformedXML(line: 3, column: 26, reason: "an end tag does not match its start tag")) {
            try FeedParser().parse(bytes, source: Self.source)
        }
    }

    @Test func anUnescapedAmpersandIsMalformedXML() {
        let document = "<rss><channel>\n<title>Fish & chips</title></channel></rss>"
        let error = #expect(throws: FeedError.self) { try FeedParser().parse(document, source: Self.source) }
        guard case .malformedXML(let line, _, let reason)? = error else {
            Issue.record("expected malformed XML, got \(String(describing: error))")
            return
        }
        #expect(line == 2)
        #expect(reason == "a name is required here; a “&” or “<” in text must be written &amp; or &lt;")
    }

    @Test(arguments: [
        (#"<rss><x a="1" a="2"/></rss>"#, 1, 20, "an attribute is given twice"),
        ("<rss><!-- never closed </rss>", 1, 30, "a comment is not closed"),
        ("<rss>\n<title>Fish &chips</title></rss>", 2, 19, "an entity reference lacks its “;”"),
        ("<rss version=2.0>", 1, 14, "an attribute value must be in quotes"),
    ])
    func xmlErrorsSayWhatLibxml2Found(document: String, line: Int, column: Int, reason: String) {
        #expect(throws: FeedError.malformedXML(line: line, column: column, reason: reason)) {
            try FeedParser().parse(document, source: Self.source)
        }
    }

    @Test(arguments: [
        (#"<?xml encoding="UTF-8"?><rss/>"#, 1, 7, "Malformed declaration expecting version"),
        (#"<?xml version="1.0" <rss/>"#, 1, 21, "parsing XML declaration: '?>' expected"),
        ("<rss><channel><!-- a -- b --></channel></rss>", 1, 22, "Double hyphen within comment"),
    ])
    func anXMLErrorWithoutAReasonOfOursGivesLibxml2sMessage(document: String, line: Int, column: Int, reason: String) {
        #expect(throws: FeedError.malformedXML(line: line, column: column, reason: reason)) {
            try FeedParser().parse(document, source: Self.source)
        }
    }

    @Test func aJSONFeedsItemsThatAreNotAnArrayAreAnUnexpectedStructure() {
        let document = #"{"version": "https://jsonfeed.org/version/1.1", "items": {"id": "1"}}"#
        #expect(throws: FeedError.unexpectedStructure(path: "$.items", reason: "expected an array, found an object")) {
            try FeedParser().parse(document, source: Self.source)
        }
    }

    @Test func attachmentsThatAreNotAnArrayAreAnUnexpectedStructureAtTheirPath() {
        let document = """
            {"version": "https://jsonfeed.org/version/1.1", "items": [
              {"id": "1", "image": "a.jpg"},
              {"id": "2", "attachments": {"url": "b.jpg", "mime_type": "image/jpeg"}}
            ]}
            """
        #expect(throws: FeedError.unexpectedStructure(path: "$.items[1].attachments", reason: "expected an array, found an object")) {
            try FeedParser().parse(document, source: Self.source)
        }
    }

    @Test func aJSONFeedWithoutItemsIsAnUnexpectedStructure() {
        #expect(throws: FeedError.unexpectedStructure(path: "$.items", reason: "a JSON Feed needs an items array, and it is missing")) {
            try FeedParser().parse(#"{"version": "https://jsonfeed.org/version/1.1", "title": "Empty"}"#, source: Self.source)
        }
    }

    @Test(arguments: [
        #"{"version": "https://jsonfeed.org/version/1.1", "items": [{"id": "1", "content_text": "words"}]}"#,
        "<rss><channel><title>Words</title><item><title>Only text</title></item></channel></rss>",
        #"<feed xmlns="http://www.w3.org/2005/Atom"><entry><link rel="alternate" href="/a"/></entry></feed>"#,
        "[]",
        #"{"results": []}"#,
    ])
    func aFeedThatNamesNoImageIsNoImages(document: String) {
        #expect(throws: FeedError.noImages) {
            try FeedParser().parse(document, source: Self.source)
        }
    }

    @Test(arguments: [JSONFeedParsingTests.catsFeed, PlainJSONParsingTests.photoList])
    func aJSONDocumentCutAnywhereIsMalformedJSON(document: String) {
        let bytes = Array(document.utf8)
        for length in 1..<bytes.count {
            let error = #expect(throws: FeedError.self) { try FeedParser().parse(Array(bytes[..<length]), source: Self.source) }
            guard case .malformedJSON? = error else {
                Issue.record("cut after \(length) bytes: \(String(describing: error))")
                return
            }
        }
    }

    @Test(arguments: [RSSParsingTests.harbourFeed, AtomParsingTests.alpineFeed])
    func anXMLDocumentCutAnywhereIsMalformedXML(document: String) {
        let bytes = Array(document.utf8)
        for length in 1..<bytes.count {
            let error = #expect(throws: FeedError.self) { try FeedParser().parse(Array(bytes[..<length]), source: Self.source) }
            guard case .malformedXML? = error else {
                Issue.record("cut after \(length) bytes: \(String(describing: error))")
                return
            }
        }
    }

    @Test func descriptionsSayWhatAndWhere() {
        #expect(FeedError.malformedJSON(line: 3, column: 14, reason: "expected a value, found “]”").description
                == "malformed JSON at line 3, column 14: expected a value, found “]”")
        #expect(FeedError.malformedXML(line: 2, column: 8, reason: "expected “>”").description
                == "malformed XML at line 2, column 8: expected “>”")
        #expect(FeedError.unsafeXML(line: 2, column: 3, reason: "the DOCTYPE declares an entity").description
                == "unsafe XML at line 2, column 3: the DOCTYPE declares an entity")
        #expect(FeedError.unexpectedStructure(path: "$.items[3].attachments", reason: "expected an array, found an object")
                    .description == "unexpected structure at $.items[3].attachments: expected an array, found an object")
        #expect(FeedError.unrecognized(reason: "the document is empty").description == "not a feed: the document is empty")
        #expect(FeedError.invalidSource(source: "", reason: "the path is empty").description
                == "invalid feed source “”: the path is empty")
        #expect(FeedError.noImages.description == "the feed names no images: no item has an image URL")
    }
}
