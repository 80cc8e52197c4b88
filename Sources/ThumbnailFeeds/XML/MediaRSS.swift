/// Media RSS (https://www.rssboard.org/media-rss), used in both RSS and Atom feeds: `media:content` that is
/// an image and `media:thumbnail`, wherever they are inside an item (directly, in `media:group`, or a
/// thumbnail inside a video's `media:content`).
enum MediaRSS {
    /// The spec's namespace, and the same without its trailing slash, which some publishers write.
    static let namespaces: Set = ["http://search.yahoo.com/mrss/", "http://search.yahoo.com/mrss"]

    /// The image URL an element names, if it is a Media RSS image.
    static func imageReference(in element: XMLName, attributes: [String: String]) -> String? {
        guard namespaces.contains(element.namespace) else { return nil }
        switch element.local {
        case "content":
            let isImage = attributes["medium"] == "image" || MediaType.isImage(attributes["type"])
            return isImage ? attributes["url"] : nil
        case "thumbnail":
            return attributes["url"]
        default:
            return nil
        }
    }
}
