import Testing
import ThumbnailFeeds

/// RSS 2.0: image enclosures and Media RSS (`media:content`, `media:group`, `media:thumbnail`).
@Suite struct RSSParsingTests {
    static let source = "https://photos.example.net/feeds/rss.xml"

    static let harbourFeed = """
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/" xmlns:dc="http://purl.org/dc/elements/1.1/">
          <channel>
            <title>Harbour Photos</title>
            <link>https://photos.example.net/</link>
            <description>Boats &amp; birds</description>
            <image>
              <url>https://photos.example.net/logo.png</url>
              <title>Harbour Photos logo</title>
              <link>https://photos.example.net/</link>
            </image>
            <item>
              <title>Morning fog</title>
              <dc:creator>Ines</dc:creator>
              <enclosure url="https://photos.example.net/fog.jpg" length="123456" type="image/jpeg"/>
              <enclosure url="https://photos.example.net/fog-ambience.mp3" length="999" type="audio/mpeg"/>
            </item>
            <item>
              <title><![CDATA[Gulls & <terns>]]></title>
              <media:content url="gulls.jpg" medium="image" width="1200"/>
              <media:content url="terns.png" type="image/png"/>
              <media:content url="harbour.mp4" type="video/mp4">
                <media:thumbnail url="harbour-poster.jpg"/>
              </media:content>
            </item>
            <item>
              <title>
                Regatta
              </title>
              <media:group>
                <media:content url="https://cdn.example.net/regatta-large.jpg" medium="image"/>
                <media:content url="https://cdn.example.net/regatta-small.jpg" medium="image"/>
              </media:group>
              <media:thumbnail url="https://cdn.example.net/regatta-thumb.jpg"/>
            </item>
            <item>
              <title>Podcast episode</title>
              <enclosure url="https://photos.example.net/ep1.mp3" type="audio/mpeg"/>
            </item>
          </channel>
        </rss>
        """

    @Test func imageEnclosuresAreReadAndAudioEnclosuresIgnored() throws {
        let feed = try FeedParser().parse(Self.harbourFeed, source: Self.source)
        #expect(feed.format == .rss)
        #expect(feed.items.first == FeedItem(title: "Morning fog", imageURLs: ["https://photos.example.net/fog.jpg"]))
    }

    @Test func mediaContentCountsWhenItsMediumOrTypeSaysImageAndItsThumbnailAlways() throws {
        let feed = try FeedParser().parse(Self.harbourFeed, source: Self.source)
        #expect(feed.items.dropFirst().first?.imageURLs == [
            "https://photos.example.net/feeds/gulls.jpg",
            "https://photos.example.net/feeds/terns.png",
            "https://photos.example.net/feeds/harbour-poster.jpg",
        ])
    }

    @Test func mediaGroupsAndItemThumbnailsCount() throws {
        let feed = try FeedParser().parse(Self.harbourFeed, source: Self.source)
        #expect(feed.items.dropFirst(2).first == FeedItem(title: "Regatta", imageURLs: [
            "https://cdn.example.net/regatta-large.jpg",
            "https://cdn.example.net/regatta-small.jpg",
            "https://cdn.example.net/regatta-thumb.jpg",
        ]))
    }

    @Test func anItemWithOnlyAudioIsLeftOut() throws {
        let feed = try FeedParser().parse(Self.harbourFeed, source: Self.source)
        #expect(feed.items.map(\.title) == ["Morning fog", "Gulls & <terns>", "Regatta"])
    }

    @Test func theChannelTitleIsTheFeedTitleNotTheChannelImages() throws {
        let feed = try FeedParser().parse(Self.harbourFeed, source: Self.source)
        #expect(feed.title == "Harbour Photos")
    }

    @Test func escapedAmpersandsInAnImageURLArePlainAmpersands() throws {
        let document = #"<rss><channel><item><enclosure url="big.jpg?w=1&amp;h=2&#38;q=3" type="image/jpeg"/></item></channel></rss>"#
        let feed = try FeedParser().parse(document, source: Self.source)
        #expect(feed.uniqueImageURLs == ["https://photos.example.net/feeds/big.jpg?w=1&h=2&q=3"])
    }

    @Test func aFeedOfMoreThanTenMegabytesIsRead() async throws {
        // Given to libxml2 in one piece, it stopped at 10 MB with "Huge input lookup".
        let padding = String(repeating: "<!-- \(String(repeating: "x", count: 1000)) -->\n", count: 11_000)
        let document = "<rss><channel><title>Big</title>\n\(padding)"
            + #"<item><title>Last</title><enclosure url="last.jpg" type="image/jpeg"/></item></channel></rss>"#
        #expect(document.utf8.count > 11_000_000)
        let feed = try await FeedParser().parseOffThePool(document, source: Self.source)
        #expect(feed.items == [FeedItem(title: "Last", imageURLs: ["https://photos.example.net/feeds/last.jpg"])])
    }

    @Test func anUndeclaredMediaPrefixDoesNotStopTheFeed() throws {
        // Sloppy feeds use `media:` without declaring it; libxml2 reports a namespace error, not a fatal one.
        let document = """
            <rss version="2.0"><channel><title>Sloppy</title>
            <item><title>A</title><enclosure url="a.jpg" type="image/jpeg"/><media:thumbnail url="b.jpg"/></item>
            </channel></rss>
            """
        let feed = try FeedParser().parse(document, source: Self.source)
        #expect(feed.items == [FeedItem(title: "A", imageURLs: ["https://photos.example.net/feeds/a.jpg"])])
    }
}
