/// What a format reader found in a document, before its image URLs are resolved against the source and
/// checked against the source policy (`FeedSource`).
struct FeedDocument {
    /// One item of the feed, with its image URLs exactly as the document writes them.
    struct Entry {
        var title: String?
        var imageReferences: [String]
    }

    var format: FeedFormat
    var title: String?
    var entries: [Entry]
}
