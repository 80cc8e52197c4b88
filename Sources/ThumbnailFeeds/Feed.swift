/// The images a feed lists, found in its items and resolved to absolute URLs.
package struct Feed: Sendable, Hashable {
    /// What the feed was recognised as, from its content.
    package var format: FeedFormat
    /// The feed's own title, when it has one.
    package var title: String?
    /// The items in the order of the feed; items without an image are left out.
    package var items: [FeedItem]
    /// Image URLs the feed names but may not be fetched (a web feed pointing at local files).
    package var refused: [RefusedImage]

    package init(format: FeedFormat, title: String? = nil, items: [FeedItem], refused: [RefusedImage] = []) {
        self.format = format
        self.title = title
        self.items = items
        self.refused = refused
    }

    /// Every image URL of every item, each once, in order of first appearance.
    package var uniqueImageURLs: [String] {
        var seen = Set<String>()
        return items.flatMap(\.imageURLs).filter { seen.insert($0).inserted }
    }
}

/// What a feed is beside its items, which ``FeedParser/parse(_:source:onItem:onRefused:)`` hands over
/// one at a time.
package struct FeedOutline: Sendable, Hashable {
    /// What the feed was recognised as, from its content.
    package var format: FeedFormat
    /// The feed's own title, when it has one.
    package var title: String?

    package init(format: FeedFormat, title: String? = nil) {
        self.format = format
        self.title = title
    }
}

/// One entry of a feed: its title and its images (the first is the one a list shows).
package struct FeedItem: Sendable, Hashable {
    /// The item's title, else `nil` (a list shows the image's file name).
    package var title: String?
    /// Absolute `http(s)://` or `file://` URLs, at least one, without duplicates.
    package var imageURLs: [String]

    package init(title: String?, imageURLs: [String]) {
        self.title = title
        self.imageURLs = imageURLs
    }
}

/// An image URL a feed names that its source may not point at.
package struct RefusedImage: Sendable, Hashable {
    package var url: String
    package var reason: String

    package init(url: String, reason: String) {
        self.url = url
        self.reason = reason
    }
}

/// The feed formats recognised, from the content (never the URL).
package enum FeedFormat: String, Sendable, Hashable, CaseIterable {
    /// JSON Feed 1.0/1.1 (`version` starting with `https://jsonfeed.org/version/`).
    case jsonFeed = "JSON Feed"
    /// RSS 2.0, with enclosures and Media RSS.
    case rss = "RSS"
    /// Atom, with enclosure links and Media RSS.
    case atom = "Atom"
    /// Any other JSON: an array of URLs or of objects naming an image.
    case plainJSON = "plain JSON"
}
