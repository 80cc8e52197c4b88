import Testing
import ThumbnailFeeds

@Suite struct FeedTests {
    @Test func uniqueImageURLsKeepsTheFirstAppearanceOfEach() {
        let feed = Feed(format: .jsonFeed, items: [
            FeedItem(title: "a", imageURLs: ["http://x/1.jpg", "http://x/2.jpg"]),
            FeedItem(title: "b", imageURLs: ["http://x/2.jpg"]),
            FeedItem(title: nil, imageURLs: ["http://x/3.jpg", "http://x/1.jpg"]),
        ])
        #expect(feed.uniqueImageURLs == ["http://x/1.jpg", "http://x/2.jpg", "http://x/3.jpg"])
    }
}
