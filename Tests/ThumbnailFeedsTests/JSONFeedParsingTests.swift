import Testing
import ThumbnailFeeds

/// JSON Feed 1.1: `image`, `banner_image` and image attachments, per item.
@Suite struct JSONFeedParsingTests {
    static let source = "https://cats.example.org/feeds/feed.json"

    static let catsFeed = """
        {
          "version": "https://jsonfeed.org/version/1.1",
          "title": "Cat Pictures Daily",
          "home_page_url": "https://cats.example.org/",
          "feed_url": "https://cats.example.org/feeds/feed.json",
          "authors": [{"name": "Ada", "avatar": "https://cats.example.org/ada.png"}],
          "items": [
            {
              "id": "1",
              "title": "Whiskers on the windowsill",
              "content_text": "A sunny morning.",
              "date_published": "2025-05-01T08:00:00Z",
              "image": "images/whiskers.jpg",
              "banner_image": "https://cdn.example.org/banners/whiskers-wide.jpg",
              "attachments": [
                {"url": "/audio/purr.mp3", "mime_type": "audio/mpeg", "size_in_bytes": 88000},
                {"url": "../full/whiskers-4k.png", "mime_type": "image/png", "title": "Full size"}
              ]
            },
            {"id": "2", "title": "Text only", "content_text": "No picture today."},
            {
              "id": "3",
              "image": "https://cdn.example.org/mittens.jpg",
              "attachments": [{"url": "https://cdn.example.org/mittens.jpg", "mime_type": "image/jpeg"}]
            },
            {
              "id": "4",
              "title": "Also mittens",
              "image": "https://cdn.example.org/mittens.jpg"
            }
          ]
        }
        """

    @Test func readsEachItemsImageBannerAndImageAttachmentsInThatOrder() throws {
        let feed = try FeedParser().parse(Self.catsFeed, source: Self.source)
        #expect(feed.format == .jsonFeed)
        #expect(feed.title == "Cat Pictures Daily")
        #expect(feed.items.first == FeedItem(title: "Whiskers on the windowsill", imageURLs: [
            "https://cats.example.org/feeds/images/whiskers.jpg",
            "https://cdn.example.org/banners/whiskers-wide.jpg",
            "https://cats.example.org/full/whiskers-4k.png",
        ]))
        #expect(feed.refused.isEmpty)
    }

    @Test func nonImageAttachmentsAreIgnored() throws {
        let feed = try FeedParser().parse(Self.catsFeed, source: Self.source)
        #expect(!feed.uniqueImageURLs.contains { $0.hasSuffix(".mp3") })
    }

    @Test func anItemWithoutAnImageIsLeftOut() throws {
        let feed = try FeedParser().parse(Self.catsFeed, source: Self.source)
        #expect(feed.items.map(\.title) == ["Whiskers on the windowsill", nil, "Also mittens"])
    }

    @Test func aURLTwiceInOneItemIsKeptOnceButAnotherItemKeepsItToo() throws {
        let feed = try FeedParser().parse(Self.catsFeed, source: Self.source)
        #expect(feed.items[1] == FeedItem(title: nil, imageURLs: ["https://cdn.example.org/mittens.jpg"]))
        #expect(feed.items[2] == FeedItem(title: "Also mittens", imageURLs: ["https://cdn.example.org/mittens.jpg"]))
        #expect(feed.uniqueImageURLs.filter { $0.hasSuffix("mittens.jpg") }.count == 1)
    }

    @Test func version1FeedsAreJSONFeedsToo() throws {
        let document = #"{"version": "https://jsonfeed.org/version/1", "items": [{"id": "1", "image": "a.jpg"}]}"#
        let feed = try FeedParser().parse(document, source: Self.source)
        #expect(feed.format == .jsonFeed)
        #expect(feed.items == [FeedItem(title: nil, imageURLs: ["https://cats.example.org/feeds/a.jpg"])])
    }

    @Test func anImageKeyPathDoesNotApplyToJSONFeeds() throws {
        let feed = try FeedParser(imageKeyPath: "content_text").parse(Self.catsFeed, source: Self.source)
        #expect(feed.items.count == 3)
        #expect(feed.items[0].imageURLs[0] == "https://cats.example.org/feeds/images/whiskers.jpg")
    }

    @Test func aFieldOfTheWrongTypeIsAnUnexpectedStructureAtItsPath() {
        let document = """
            {"version": "https://jsonfeed.org/version/1.1",
             "items": [{"id": "1", "image": "a.jpg"}, {"id": "2", "banner_image": 42}]}
            """
        #expect(throws: FeedError.unexpectedStructure(path: "$.items[1].banner_image",
                                                      reason: "expected a string, found a number")) {
            try FeedParser().parse(document, source: Self.source)
        }
    }
}
