import Testing
import ThumbnailFeeds

/// Plain JSON: arrays of URLs or of objects, bare or under `items`, `data` or `results`; the image field
/// guessed from the usual keys or named by a key path.
@Suite struct PlainJSONParsingTests {
    static let source = "https://api.example.com/v2/photos"

    static let photoList = """
        [
          {"id": 1, "title": "Red kite", "image": "https://img.example.com/kite.jpg", "likes": 12},
          {"id": 2, "name": "Heron", "url": "/static/heron.jpg"},
          {"id": 3, "caption": "no picture here"},
          {"id": 4, "image": {"url": "https://img.example.com/owl-large.jpg", "width": 2000}}
        ]
        """

    @Test func anArrayOfStringsIsOneUntitledItemPerURL() throws {
        let document = #"["https://img.example.com/1.jpg", "2.jpg", "  /3.jpg\n"]"#
        let feed = try FeedParser().parse(document, source: Self.source)
        #expect(feed.format == .plainJSON)
        #expect(feed.items == [
            FeedItem(title: nil, imageURLs: ["https://img.example.com/1.jpg"]),
            FeedItem(title: nil, imageURLs: ["https://api.example.com/v2/2.jpg"]),
            FeedItem(title: nil, imageURLs: ["https://api.example.com/3.jpg"]),
        ])
    }

    @Test func objectsGiveTheirImageAndTitleOrNameAndThoseWithoutAnImageAreSkipped() throws {
        let feed = try FeedParser().parse(Self.photoList, source: Self.source)
        #expect(feed.items == [
            FeedItem(title: "Red kite", imageURLs: ["https://img.example.com/kite.jpg"]),
            FeedItem(title: "Heron", imageURLs: ["https://api.example.com/static/heron.jpg"]),
            FeedItem(title: nil, imageURLs: ["https://img.example.com/owl-large.jpg"]),
        ])
    }

    @Test(arguments: ["image", "imageURL", "imageUrl", "image_url", "url", "thumbnail", "thumbnailUrl",
                      "thumbnail_url", "src"])
    func eachUsualKeyNamesTheImage(key: String) throws {
        let feed = try FeedParser().parse(#"[{"title": "T", "\#(key)": "pic.jpg"}]"#, source: Self.source)
        #expect(feed.items == [FeedItem(title: "T", imageURLs: ["https://api.example.com/v2/pic.jpg"])])
    }

    @Test func theFirstUsualKeyWithAURLWins() throws {
        let document = #"""
            [{"src": "s.jpg", "thumbnail": "t.jpg", "url": "u.jpg", "image": "i.jpg"},
             {"src": "s.jpg", "thumbnail": "t.jpg", "url": "u.jpg"},
             {"src": "s.jpg", "url": "", "image": null}]
            """#
        let feed = try FeedParser().parse(document, source: Self.source)
        #expect(feed.items.map(\.imageURLs) == [["https://api.example.com/v2/i.jpg"],
                                                ["https://api.example.com/v2/u.jpg"],
                                                ["https://api.example.com/v2/s.jpg"]])
    }

    @Test func anImageObjectGivesItsURLOrSrc() throws {
        let document = #"[{"image": {"url": "a.jpg", "src": "ignored.jpg"}}, {"image": {"src": "b.jpg", "alt": "B"}}]"#
        let feed = try FeedParser().parse(document, source: Self.source)
        #expect(feed.uniqueImageURLs == ["https://api.example.com/v2/a.jpg", "https://api.example.com/v2/b.jpg"])
    }

    @Test func anImageKeyPathIsFollowedExactlyWithoutGuessing() throws {
        let document = """
            [{"title": "A", "url": "guessed.jpg", "media": {"large": {"href": "large/a.jpg"}, "small": {"href": "s.jpg"}}},
             {"title": "B", "url": "only-guessable.jpg"},
             {"title": "C", "media": {"large": {"href": "large/c.jpg"}}}]
            """
        let feed = try FeedParser(imageKeyPath: "media.large.href").parse(document, source: Self.source)
        #expect(feed.items == [
            FeedItem(title: "A", imageURLs: ["https://api.example.com/v2/large/a.jpg"]),
            FeedItem(title: "C", imageURLs: ["https://api.example.com/v2/large/c.jpg"]),
        ])
    }

    @Test func aNumberInTheKeyPathIndexesAnArray() throws {
        let document = #"[{"images": [{"url": "first.jpg"}, {"url": "second.jpg"}]}]"#
        let feed = try FeedParser(imageKeyPath: "images.1.url").parse(document, source: Self.source)
        #expect(feed.uniqueImageURLs == ["https://api.example.com/v2/second.jpg"])
    }

    @Test func aKeyPathReachingSomethingOtherThanAStringIsAnUnexpectedStructure() {
        let document = #"[{"media": {"large": {"href": "a.jpg"}}}]"#
        #expect(throws: FeedError.unexpectedStructure(
            path: "$[0].media.large",
            reason: "expected an image URL at the image key path “media.large”, found an object")) {
            try FeedParser(imageKeyPath: "media.large").parse(document, source: Self.source)
        }
    }

    @Test(arguments: ["items", "data", "results"])
    func aListUnderAWellKnownKeyIsUnwrapped(key: String) throws {
        let document = #"{"page": 1, "\#(key)": [{"title": "P", "src": "p.jpg"}], "total": 1}"#
        let feed = try FeedParser().parse(document, source: Self.source)
        #expect(feed.items == [FeedItem(title: "P", imageURLs: ["https://api.example.com/v2/p.jpg"])])
    }

    @Test func itemsIsLookedForBeforeDataAndDataBeforeResults() throws {
        let document = #"{"results": ["r.jpg"], "data": ["d.jpg"], "items": ["i.jpg"]}"#
        #expect(try FeedParser().parse(document, source: Self.source).uniqueImageURLs == ["https://api.example.com/v2/i.jpg"])
        let withoutItems = #"{"results": ["r.jpg"], "data": ["d.jpg"]}"#
        #expect(try FeedParser().parse(withoutItems, source: Self.source).uniqueImageURLs == ["https://api.example.com/v2/d.jpg"])
    }

    @Test func aWellKnownKeyThatIsNotAnArrayIsAnUnexpectedStructure() {
        #expect(throws: FeedError.unexpectedStructure(path: "$.data", reason: "expected an array, found an object")) {
            try FeedParser().parse(#"{"data": {"photo": "a.jpg"}}"#, source: Self.source)
        }
    }

    @Test func anObjectWithoutAListIsAnUnexpectedStructure() {
        let error = #expect(throws: FeedError.self) {
            try FeedParser().parse(#"{"photo": "a.jpg"}"#, source: Self.source)
        }
        guard case .unexpectedStructure(let path, _)? = error else {
            Issue.record("expected an unexpected structure, got \(String(describing: error))")
            return
        }
        #expect(path == "$")
    }

    @Test func anElementThatIsNeitherAURLNorAnObjectIsAnUnexpectedStructure() {
        #expect(throws: FeedError.unexpectedStructure(path: "$[1]", reason: "expected an image URL or an object, found a number")) {
            try FeedParser().parse(#"["a.jpg", 2]"#, source: Self.source)
        }
    }

    @Test func objectsOfWhichNoneNamesAnImageAreNoImages() {
        #expect(throws: FeedError.noImages) {
            try FeedParser().parse(#"[{"id": 1, "caption": "x"}, {"id": 2}]"#, source: Self.source)
        }
    }
}
