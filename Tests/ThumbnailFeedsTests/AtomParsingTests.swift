import Testing
import ThumbnailFeeds

/// Atom: `<link rel="enclosure">` with an image type, and Media RSS inside entries.
@Suite struct AtomParsingTests {
    static let source = "https://alps.example.com/diary/atom.xml"

    static let alpineFeed = """
        <?xml version="1.0" encoding="utf-8"?>
        <feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/">
          <title type="text">Alpine Diary</title>
          <id>urn:uuid:60a76c80-d399-11d9-b93C-0003939e0af6</id>
          <updated>2025-03-01T18:30:02Z</updated>
          <link href="https://alps.example.com/"/>
          <author><name>Marta</name></author>
          <entry>
            <title>Summit at dawn</title>
            <id>urn:uuid:1</id>
            <updated>2025-03-01T18:30:02Z</updated>
            <link rel="alternate" href="https://alps.example.com/summit"/>
            <link rel="enclosure" type="image/jpeg" href="photos/summit.jpg" length="2000000"/>
            <link rel="enclosure" type="video/mp4" href="photos/summit.mp4"/>
            <media:thumbnail url="photos/summit-thumb.jpg"/>
          </entry>
          <entry>
            <title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">Glacier <em>melt</em></div></title>
            <id>urn:uuid:2</id>
            <updated>2025-03-02T18:30:02Z</updated>
            <link rel="http://www.iana.org/assignments/relation/enclosure" type="image/webp" href="/glacier.webp"/>
            <media:group><media:content url="//cdn.example.com/glacier-hd.jpg" medium="image"/></media:group>
            <source><title>Another feed</title></source>
          </entry>
          <entry>
            <title>Trail notes</title>
            <id>urn:uuid:3</id>
            <updated>2025-03-03T18:30:02Z</updated>
            <link rel="alternate" href="https://alps.example.com/notes"/>
          </entry>
        </feed>
        """

    @Test func imageEnclosureLinksAndMediaThumbnailsAreRead() throws {
        let feed = try FeedParser().parse(Self.alpineFeed, source: Self.source)
        #expect(feed.format == .atom)
        #expect(feed.items.first == FeedItem(title: "Summit at dawn", imageURLs: [
            "https://alps.example.com/diary/photos/summit.jpg",
            "https://alps.example.com/diary/photos/summit-thumb.jpg",
        ]))
    }

    @Test func theEnclosureRelationMayBeItsIANAIRIAndMediaGroupsCount() throws {
        let feed = try FeedParser().parse(Self.alpineFeed, source: Self.source)
        #expect(feed.items.dropFirst().first?.imageURLs == [
            "https://alps.example.com/glacier.webp",
            "https://cdn.example.com/glacier-hd.jpg",
        ])
    }

    @Test func anXHTMLTitleIsItsTextAndASourcesTitleIsNotTheEntrys() throws {
        let feed = try FeedParser().parse(Self.alpineFeed, source: Self.source)
        #expect(feed.items.map(\.title) == ["Summit at dawn", "Glacier melt"])
    }

    @Test func theFeedTitleIsRead() throws {
        let feed = try FeedParser().parse(Self.alpineFeed, source: Self.source)
        #expect(feed.title == "Alpine Diary")
    }

    @Test func aFeedElementOutsideTheAtomNamespaceIsNotAtom() {
        let document = #"<feed><entry><link rel="enclosure" type="image/png" href="a.png"/></entry></feed>"#
        #expect(throws: FeedError.unrecognized(
            reason: "the root element <feed> is not in the Atom namespace (http://www.w3.org/2005/Atom)")) {
            try FeedParser().parse(document, source: Self.source)
        }
    }
}
