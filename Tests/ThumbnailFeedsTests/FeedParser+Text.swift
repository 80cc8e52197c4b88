import ThumbnailFeeds

extension FeedParser {
    /// Parses a document written as a string literal, as UTF-8.
    func parse(_ text: String, source: String) throws(FeedError) -> Feed {
        try parse(Array(text.utf8), source: source)
    }
}
