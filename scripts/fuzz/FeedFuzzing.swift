// What the JSON and XML feed harnesses share (scripts/fuzz.sh json, xml), compiled together with
// Sources/ThumbnailFeeds: a feed parsed from the web or from a file, and what must hold of the result.

enum FeedFuzzing {
    /// Where the input came from, by its length: half from the web, half from a local file, so that
    /// both policies for image URLs are fuzzed.
    static func source(of bytes: [UInt8]) -> String {
        bytes.count % 2 == 0 ? "https://example.com/feeds/feed" : "/srv/feeds/feed"
    }

    /// Parses `bytes` as `FeedParser` does for `warm`, and checks the promises of its result: a web feed's
    /// images are web URLs, every item has at least one image and none twice, and an error names a
    /// position inside the document.
    static func parse(_ bytes: [UInt8], imageKeyPath: String? = nil) {
        let source = source(of: bytes)
        do {
            let feed = try FeedParser(imageKeyPath: imageKeyPath).parse(bytes, source: source)
            let schemes = source.hasPrefix("https:") ? ["http://", "https://"] : ["http://", "https://", "file:///"]
            for item in feed.items {
                precondition(!item.imageURLs.isEmpty, "an item without images")
                precondition(Set(item.imageURLs).count == item.imageURLs.count, "an item names an image twice")
                for url in item.imageURLs {
                    precondition(schemes.contains { url.lowercased().hasPrefix($0) }, "\(url) accepted from \(source)")
                }
            }
            _ = feed.uniqueImageURLs.count
        } catch {
            check(error)
        }
    }

    static func check(_ error: FeedError) {
        switch error {
        case .malformedJSON(let line, let column, _), .malformedXML(let line, let column, _),
             .unsafeXML(let line, let column, _):
            precondition(line >= 1 && column >= 1, "an error at line \(line), column \(column): \(error)")
        case .libraryUnavailable:
            preconditionFailure("\(error)")
        default:
            break
        }
        _ = error.description
    }
}
