import Testing
import ThumbnailFeeds

/// What reading a feed keeps is bounded whatever the document: a string of megabytes is kept cut, an
/// item keeps at most a megabyte, and nesting stops at 512 levels in XML as in JSON. The strings
/// here are 2 MB, 128 times the 16 KiB a string keeps (a string kept whole fails them as one of
/// 30 MB would, in a fifteenth of the time); the documents are parsed off the cooperative pool.
@Suite struct FeedLimitsTests {
    static let hugeText = String(repeating: "t", count: 2_000_000)
    static let longURL = "https://example.com/" + String(repeating: "p", count: 2_000_000)

    func expectCut(_ title: String?, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(title?.hasSuffix("…") == true, sourceLocation: sourceLocation)
        #expect((title?.utf8.count ?? 0) <= FeedLimits.maximumTextBytes + "…".utf8.count, sourceLocation: sourceLocation)
        #expect(title?.hasPrefix("ttt") == true, sourceLocation: sourceLocation)
    }

    @Test func aJSONTitleOfMegabytesIsKeptCut() async throws {
        let feed = try await FeedParser().parseOffThePool(#"[{"url": "a.jpg", "title": "\#(Self.hugeText)"}]"#, source: "https://example.com/f.json")
        expectCut(feed.items.first?.title)
    }

    @Test func anXMLTitleOfMegabytesIsKeptCut() async throws {
        // libxml2 refuses text nodes over 10 MB without XML_PARSE_HUGE; CDATA pieces have no such limit.
        let cdata = (0..<2).map { _ in "<![CDATA[" + String(Self.hugeText.prefix(1_000_000)) + "]]>" }.joined()
        let document = #"<rss version="2.0"><channel><item><title>\#(cdata)</title>"#
            + #"<enclosure url="a.jpg" type="image/jpeg"/></item></channel></rss>"#
        let feed = try await FeedParser().parseOffThePool(document, source: "https://example.com/f.xml")
        expectCut(feed.items.first?.title)
    }

    @Test func aJSONImageURLOfMegabytesIsRefusedAsTooLongNotFetchedCut() async throws {
        let feed = try await FeedParser().parseOffThePool(#"["\#(Self.longURL)", "b.jpg"]"#, source: "https://example.com/f.json")
        #expect(feed.items.map(\.imageURLs) == [["https://example.com/b.jpg"]])
        #expect(feed.refused.count == 1)
        #expect(feed.refused.first?.reason == "a URL longer than 16 KiB, the most a feed's may be")
        #expect((feed.refused.first?.url.utf8.count ?? .max) <= FeedLimits.maximumTextBytes + "…".utf8.count)
    }

    @Test func anXMLImageURLLongerThanTheLimitIsRefused() async throws {
        let url = "https://example.com/" + String(repeating: "p", count: 2_000_000)
        let document = #"<rss version="2.0"><channel><item><enclosure url="\#(url)" type="image/jpeg"/></item></channel></rss>"#
        let feed = try await FeedParser().parseOffThePool(document, source: "https://example.com/f.xml")
        #expect(feed.items.isEmpty && feed.refused.first?.reason == "a URL longer than 16 KiB, the most a feed's may be")
    }

    @Test func aURLOfExactlyTheLimitIsKept() throws {
        let url = "https://example.com/" + String(repeating: "p", count: FeedLimits.maximumTextBytes - 20)
        #expect(url.utf8.count == FeedLimits.maximumTextBytes)
        let feed = try FeedParser().parse(#"["\#(url)"]"#, source: "https://example.com/f.json")
        #expect(feed.items.map(\.imageURLs) == [[url]])
    }

    @Test func xmlNestingUpToTheLimitIsReadAndDeeperIsAnErrorNamingIt() throws {
        func document(depth: Int) -> String {
            // The root, the channel, the item and its enclosure are four levels, the enclosure the deepest.
            let levels = depth - 4
            return #"<rss version="2.0"><channel>"# + String(repeating: "<x>", count: levels)
                + #"<item><enclosure url="a.jpg" type="image/jpeg"/></item>"# + String(repeating: "</x>", count: levels)
                + "</channel></rss>"
        }
        #expect(try FeedParser().parse(document(depth: 512), source: "https://example.com/f.xml").items.count == 1)
        #expect {
            try FeedParser().parse(document(depth: 513), source: "https://example.com/f.xml")
        } throws: { error in
            guard case .malformedXML(_, _, let reason) = error as? FeedError else { return false }
            return reason == "elements nest deeper than 512 levels, the most a feed may"
        }
    }

    @Test func aJSONItemKeepingMoreThanAMegabyteIsAnErrorNamingTheLimit() throws {
        let attachment = #"{"url": "https://example.com/a.jpg", "mime_type": "image/jpeg"}"#
        let attachments = Array(repeating: attachment, count: 40_000).joined(separator: ",")
        let document = #"{"version": "https://jsonfeed.org/version/1.1", "items": [{"id": "1"}, {"attachments": [\#(attachments)]}]}"#
        #expect {
            try FeedParser().parse(document, source: "https://example.com/f.json")
        } throws: { error in
            guard case .unexpectedStructure(let path, let reason) = error as? FeedError else { return false }
            return path == "$.items[1]" && reason.hasPrefix("the item keeps more than 1 MiB")
        }
    }

    @Test func anXMLItemKeepingMoreThanAMegabyteIsAnErrorNamingTheLimit() throws {
        let enclosure = #"<enclosure url="https://example.com/a.jpg" type="image/jpeg"/>"#
        let document = #"<rss version="2.0"><channel><item>"# + String(repeating: enclosure, count: 40_000)
            + "</item></channel></rss>"
        #expect {
            try FeedParser().parse(document, source: "https://example.com/f.xml")
        } throws: { error in
            guard case .unexpectedStructure(let path, let reason) = error as? FeedError else { return false }
            return path == "item 1" && reason.hasPrefix("the item keeps more than 1 MiB")
        }
    }

    @Test func aJSONFeedWhoseVersionComesAfterItsItemsIsStillAJSONFeed() throws {
        let feed = try FeedParser().parse(#"{"items": [{"id": "1", "image": "a.jpg", "url": "b.jpg"}], "version": "https://jsonfeed.org/version/1.1"}"#,
                                          source: "https://example.com/f.json")
        #expect(feed.format == .jsonFeed && feed.items.map(\.imageURLs) == [["https://example.com/a.jpg"]])
    }

    @Test func itemsAreHandedOverOneAtATimeInFeedOrder() throws {
        var seen: [[String]] = []
        let document = FeedBytes(Array(#"["a.jpg", {"image": "b.jpg"}, "c.jpg"]"#.utf8))
        let outline = try FeedParser().parse(document, source: "https://example.com/f.json",
                                             onItem: { seen.append($0.imageURLs) }, onRefused: { _ in })
        #expect(outline.format == .plainJSON)
        #expect(seen == [["https://example.com/a.jpg"], ["https://example.com/b.jpg"], ["https://example.com/c.jpg"]])
    }
}
