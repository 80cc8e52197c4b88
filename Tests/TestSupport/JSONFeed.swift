/// JSON Feed documents for the tests that warm a cache from a feed.
public enum JSONFeed {
    /// A JSON Feed 1.1 with one item per URL, each naming it as its `image`.
    public static func listing(_ imageURLs: [String]) -> [UInt8] {
        let items = imageURLs.enumerated().map { index, url in #"{"id": "\#(index)", "image": "\#(url)"}"# }
        return Array(#"{"version": "https://jsonfeed.org/version/1.1", "title": "Test", "items": [\#(items.joined(separator: ","))]}"#.utf8)
    }
}
