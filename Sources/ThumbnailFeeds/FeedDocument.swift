/// What a format reader found in a document beside its items, which it hands over one at a time as it
/// reads them (`Entry`), before their image URLs are resolved against the source and checked against the
/// source policy (`FeedSource`).
struct FeedDocument {
    /// One item of the feed, with its image URLs exactly as the document writes them (each cut to
    /// `FeedLimits.maximumTextBytes`, ending in “…” when longer).
    struct Entry {
        var title: String?
        var imageReferences: [String]
    }

    var format: FeedFormat
    var title: String?
}
