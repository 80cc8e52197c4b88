import Foundation
import Testing
import ThumbnailFeeds

/// Image URLs are trimmed, resolved against the feed's source and checked against the source policy.
@Suite struct ImageURLResolutionTests {
    /// A plain-JSON list with one item per reference, so each result lines up with its reference.
    static func imageURLs(of references: [String], source: String) throws -> [String] {
        let document = try JSONSerialization.data(withJSONObject: references)
        return try FeedParser().parse(Array(document), source: source).items.flatMap(\.imageURLs)
    }

    static let relativeReferences = ["photos/a.jpg", "../b.png", "/c.jpg", "//cdn.example.org/d.jpg",
                                     " \thttps://other.example.org/e.jpg\n", "my photos/f ü.jpg", "g.jpg?size=large#top"]

    @Test func relativeURLsResolveAgainstAWebSource() throws {
        let urls = try Self.imageURLs(of: Self.relativeReferences, source: "https://news.example.com/feeds/daily/feed.json")
        #expect(urls == [
            "https://news.example.com/feeds/daily/photos/a.jpg",
            "https://news.example.com/feeds/b.png",
            "https://news.example.com/c.jpg",
            "https://cdn.example.org/d.jpg",
            "https://other.example.org/e.jpg",
            "https://news.example.com/feeds/daily/my%20photos/f%20%C3%BC.jpg",
            "https://news.example.com/feeds/daily/g.jpg?size=large#top",
        ])
    }

    @Test func relativeURLsResolveAgainstAFileURLSource() throws {
        let references = ["photos/a.jpg", "../b.png", "/c.jpg", "my photos/f ü.jpg"]
        let urls = try Self.imageURLs(of: references, source: "file:///srv/feeds/daily/feed.json")
        #expect(urls == [
            "file:///srv/feeds/daily/photos/a.jpg",
            "file:///srv/feeds/b.png",
            "file:///c.jpg",
            "file:///srv/feeds/daily/my%20photos/f%20%C3%BC.jpg",
        ])
    }

    @Test func anAbsolutePathSourceBecomesAFileURL() throws {
        let urls = try Self.imageURLs(of: ["photos/a.jpg", "../b.png", "/c.jpg"], source: "/srv/my feeds/feed.json")
        #expect(urls == ["file:///srv/my%20feeds/photos/a.jpg", "file:///srv/b.png", "file:///c.jpg"])
    }

    @Test func aRelativePathSourceStartsFromTheCurrentDirectory() throws {
        let directory = try #require(FileManager.default.currentDirectoryPath
            .addingPercentEncoding(withAllowedCharacters: .urlPathAllowed))
        let urls = try Self.imageURLs(of: ["photos/a.jpg", "../b.png"], source: "feeds/daily.json")
        #expect(urls == ["file://\(directory)/feeds/photos/a.jpg", "file://\(directory)/b.png"])
    }

    /// The image URLs a feed at `source` accepts of `references`, and those it refuses, with the reason.
    static func resolution(of references: [String], source: String) throws -> (accepted: [String], refused: [RefusedImage]) {
        let document = try JSONSerialization.data(withJSONObject: references)
        let feed = try FeedParser().parse(Array(document), source: source)
        return (feed.items.flatMap(\.imageURLs), feed.refused)
    }

    @Test func spacesAreEscapedInPathsQueriesAndFragmentsButRefusedInHosts() throws {
        let (accepted, refused) = try Self.resolution(of: ["my photo.jpg?size=extra large#the top", "https://exa mple.com/a.jpg"],
                                                      source: "https://news.example.com/feeds/feed.json")
        #expect(accepted == ["https://news.example.com/feeds/my%20photo.jpg?size=extra%20large#the%20top"])
        #expect(refused == [RefusedImage(url: "https://exa mple.com/a.jpg", reason: "not a valid URL")])
    }

    @Test func aHostNameThatIsNotASCIIIsSpelledInPunycode() throws {
        let urls = try Self.imageURLs(of: ["https://bücher.example/ü.jpg", "//例え.jp/a.jpg", "b.jpg"],
                                      source: "https://straße.example/feed.json")
        #expect(urls == ["https://xn--bcher-kva.example/%C3%BC.jpg", "https://xn--r8jz45g.jp/a.jpg",
                         "https://xn--strae-oqa.example/b.jpg"])
    }

    @Test func aSchemeRelativeReferenceTakesTheFeedsSchemeAndMustNameAHost() throws {
        let (accepted, refused) = try Self.resolution(of: ["//cdn.example.org/d.jpg", "//cdn.example.org", "///d.jpg"],
                                                      source: "http://news.example.com/feed.json")
        #expect(accepted == ["http://cdn.example.org/d.jpg", "http://cdn.example.org/"])
        #expect(refused == [RefusedImage(url: "///d.jpg", reason: "a web URL must name a host")])
    }

    @Test func aQueryOrFragmentAloneKeepsTheFeedsPath() throws {
        let urls = try Self.imageURLs(of: ["?page=2", "#photo", "?page=3#photo", "a.jpg#x#y"],
                                      source: "https://news.example.com/feeds/feed.json?page=1#top")
        #expect(urls == [
            "https://news.example.com/feeds/feed.json?page=2",
            "https://news.example.com/feeds/feed.json?page=1#photo",
            "https://news.example.com/feeds/feed.json?page=3#photo",
            "https://news.example.com/feeds/a.jpg#x%23y",
        ])
    }

    @Test func absoluteWebURLsAreSpelledAsLibcurlFetchesThem() throws {
        let (accepted, refused) = try Self.resolution(
            of: ["HTTPS://Example.COM/a/../b/./c.jpg", "https://example.com", "http://example.com:/d.jpg",
                 "https:///e.jpg", "https://example.com:99999/f.jpg"],
            source: "https://news.example.com/feed.json")
        #expect(accepted == ["https://Example.COM/b/c.jpg", "https://example.com/", "http://example.com/d.jpg"])
        #expect(refused == [
            RefusedImage(url: "https:///e.jpg", reason: "a web URL must name a host"),
            RefusedImage(url: "https://example.com:99999/f.jpg", reason: "not a valid URL"),
        ])
    }

    @Test func aFileURLWithARelativePathStartsFromTheFeedsDirectoryAndEscapesStayEscapedOnce() throws {
        let urls = try Self.imageURLs(of: ["file:a.jpg", "file:///srv/my%20photos/ü.jpg"], source: "/srv/feeds/list.json")
        #expect(urls == ["file:///srv/feeds/a.jpg", "file:///srv/my%20photos/%C3%BC.jpg"])
    }

    @Test func fileURLsAreSpelledOneWay() throws {
        let references = ["file:/srv/a.jpg", "file://localhost/srv/b.jpg", "file:///srv/x/../c.jpg"]
        let urls = try Self.imageURLs(of: references, source: "/srv/feed.json")
        #expect(urls == ["file:///srv/a.jpg", "file:///srv/b.jpg", "file:///srv/c.jpg"])
    }

    @Test func aWebFeedMayOnlyPointAtWebImages() throws {
        let document = #"""
            {"version": "https://jsonfeed.org/version/1.1", "items": [
              {"id": "1", "title": "passwd", "image": "file:///etc/passwd"},
              {"id": "2", "title": "ftp", "image": "ftp://files.example.com/a.jpg"},
              {"id": "3", "title": "data", "image": "data:image/png;base64,iVBORw0KGgo="},
              {"id": "4", "title": "mixed", "image": "https://news.example.com/ok.jpg", "banner_image": "file:/etc/shadow"}
            ]}
            """#
        let feed = try FeedParser().parse(document, source: "https://news.example.com/feed.json")
        #expect(feed.items == [FeedItem(title: "mixed", imageURLs: ["https://news.example.com/ok.jpg"])])
        #expect(feed.refused == [
            RefusedImage(url: "file:///etc/passwd", reason: "a web feed may not point at local files"),
            RefusedImage(url: "ftp://files.example.com/a.jpg", reason: "a web feed may only point at http(s) images, not ftp: URLs"),
            RefusedImage(url: "data:image/png;base64,iVBORw0KGgo=",
                         reason: "a web feed may only point at http(s) images, not data: URLs"),
            RefusedImage(url: "file:/etc/shadow", reason: "a web feed may not point at local files"),
        ])
    }

    @Test func anAbsolutePathInAWebFeedIsAPathOnThatServerNeverALocalFile() throws {
        let urls = try Self.imageURLs(of: ["/etc/passwd"], source: "https://news.example.com/feeds/feed.json")
        #expect(urls == ["https://news.example.com/etc/passwd"])
    }

    @Test func aLocalFeedMayPointAtLocalFilesAndWebImagesButNothingElse() throws {
        let document = #"""
            ["file:///home/me/pictures/a.jpg", "https://img.example.com/b.jpg", "ftp://files.example.com/c.jpg",
             "data:image/gif;base64,R0lGODlhAQABAAAAACw=", "//fileserver/share/d.jpg"]
            """#
        let feed = try FeedParser().parse(document, source: "/home/me/feeds/list.json")
        #expect(feed.uniqueImageURLs == ["file:///home/me/pictures/a.jpg", "https://img.example.com/b.jpg"])
        #expect(feed.refused == [
            RefusedImage(url: "ftp://files.example.com/c.jpg",
                         reason: "a local feed may only point at http(s) images and local files, not ftp: URLs"),
            RefusedImage(url: "data:image/gif;base64,R0lGODlhAQABAAAAACw=",
                         reason: "a local feed may only point at http(s) images and local files, not data: URLs"),
            RefusedImage(url: "//fileserver/share/d.jpg",
                         reason: "a file URL may only name this machine (no host, or localhost)"),
        ])
    }

    @Test func aFeedWhoseImagesWereAllRefusedHasNoItemsButSaysWhy() throws {
        let feed = try FeedParser().parse(#"["file:///etc/passwd"]"#, source: "https://example.com/feed.json")
        #expect(feed.items.isEmpty)
        #expect(feed.refused == [RefusedImage(url: "file:///etc/passwd", reason: "a web feed may not point at local files")])
    }

    @Test func aURLThatCannotBeParsedIsRefused() throws {
        let feed = try FeedParser().parse(#"["http://[bad/x.jpg", "https://example.com/ok.jpg"]"#,
                                          source: "https://example.com/feed.json")
        #expect(feed.refused == [RefusedImage(url: "http://[bad/x.jpg", reason: "not a valid URL")])
        #expect(feed.uniqueImageURLs == ["https://example.com/ok.jpg"])
    }

    @Test func blankImageURLsAreNoImages() {
        #expect(throws: FeedError.noImages) {
            try FeedParser().parse(#"["", "  \n"]"#, source: "https://example.com/feed.json")
        }
    }

    @Test(arguments: ["", "http://exa mple.com/feed.json", "https:///feed.json", "file://fileserver/feed.json"])
    func aSourceThatIsNoURLOrPathIsAnInvalidSource(source: String) {
        let error = #expect(throws: FeedError.self) {
            try FeedParser().parse(#"["a.jpg"]"#, source: source)
        }
        guard case .invalidSource(let reported, _)? = error else {
            Issue.record("expected an invalid source, got \(String(describing: error))")
            return
        }
        #expect(reported == source)
    }
}
