/// The XML feed formats, told apart by their root element: which elements hold items, titles and images.
enum XMLFeedDialect {
    /// RSS 2.0: `<rss><channel><item>`, with `<enclosure>` and Media RSS.
    case rss
    /// Atom (RFC 4287): `<feed><entry>` in the Atom namespace, with `<link rel="enclosure">` and Media RSS.
    case atom

    static let atomNamespace = "http://www.w3.org/2005/Atom"

    /// The dialect whose root element is `root`, or `nil` for any other document.
    init?(root: XMLName) {
        switch root {
        case XMLName(namespace: "", local: "rss"): self = .rss
        case XMLName(namespace: Self.atomNamespace, local: "feed"): self = .atom
        default: return nil
        }
    }

    /// Why a document whose root element is `root` (written `qualifiedName`) is no feed.
    static func unrecognizedRootReason(_ root: XMLName, qualifiedName: String) -> String {
        if root.local == "feed" {
            return "the root element <\(qualifiedName)> is not in the Atom namespace (\(atomNamespace))"
        }
        if root.local == "html" {
            return "this is an HTML page, not a feed"
        }
        return "the XML root element is <\(qualifiedName)>, not RSS 2.0's <rss> or Atom's <feed>"
    }

    var format: FeedFormat {
        switch self {
        case .rss: .rss
        case .atom: .atom
        }
    }

    /// An item of the feed.
    var itemElement: XMLName {
        switch self {
        case .rss: XMLName(namespace: "", local: "item")
        case .atom: XMLName(namespace: Self.atomNamespace, local: "entry")
        }
    }

    /// The title of an item or, as a child of `feedTitleParent`, of the feed.
    var titleElement: XMLName {
        switch self {
        case .rss: XMLName(namespace: "", local: "title")
        case .atom: XMLName(namespace: Self.atomNamespace, local: "title")
        }
    }

    /// The element whose `titleElement` child is the feed's title (RSS's `<image>` has a title too).
    var feedTitleParent: XMLName {
        switch self {
        case .rss: XMLName(namespace: "", local: "channel")
        case .atom: XMLName(namespace: Self.atomNamespace, local: "feed")
        }
    }

    /// The image URL an element inside an item names, if it is an image enclosure or a Media RSS image.
    func imageReference(in element: XMLName, attributes: [String: String]) -> String? {
        switch self {
        case .rss where element == XMLName(namespace: "", local: "enclosure"):
            return MediaType.isImage(attributes["type"]) ? attributes["url"] : nil
        case .atom where element == XMLName(namespace: Self.atomNamespace, local: "link"):
            // RFC 4287 allows the relation as a registered name or as its full IANA IRI.
            let relations = ["enclosure", "http://www.iana.org/assignments/relation/enclosure"]
            let isEnclosure = attributes["rel"].map(relations.contains) ?? false
            return isEnclosure && MediaType.isImage(attributes["type"]) ? attributes["href"] : nil
        default:
            return MediaRSS.imageReference(in: element, attributes: attributes)
        }
    }
}
