#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns a feed document into the images it lists: JSON Feed 1.1, RSS 2.0 (enclosures, Media RSS), Atom
/// (enclosure links, Media RSS) or plain JSON (an array of image URLs or of objects naming an image).
///
/// The format is found from the content, never from the source's name or a Content-Type: after an optional
/// UTF-8 byte-order mark and whitespace, `{` or `[` is JSON (a JSON Feed when its `version` says so) and
/// `<` is XML (RSS or Atom by the root element). XML may also be in UTF-16 or EBCDIC, which libxml2 tells
/// from the first bytes, or declare any encoding libxml2 knows.
///
/// Image URLs are resolved against `source` and checked against it: a web feed may only name `http(s)`
/// images, a local one also `file` images. Refused URLs go to `Feed.refused`, with the reason.
///
/// XML documents whose DOCTYPE declares entities are refused (`FeedError.unsafeXML`) where libxml2 reads
/// the declaration, once the document is decoded, and parsing stops there: feeds do not need entities, and
/// the libxml2 here does not stop one large entity referenced many times. External DTDs and entities are
/// never loaded.
public struct FeedParser: Sendable {
    /// The dot-separated path to each object's image URL in plain JSON, e.g. `media.large.href`, or `nil`
    /// (the default) to try the usual keys (`image`, `imageURL`, `url`, `thumbnail`, `src`, …).
    public var imageKeyPath: String?

    /// - Parameter imageKeyPath: For plain JSON only, the dot-separated path to each object's image URL
    ///   (e.g. `media.large.href`; a numeric part indexes an array, as in `images.0.url`). Objects without
    ///   it are skipped. Defaults to `nil`: the image is found under the first of `image`, `imageURL`,
    ///   `imageUrl`, `image_url`, `url`, `thumbnail`, `thumbnailUrl`, `thumbnail_url`, `src` that holds a
    ///   URL string (or an object with a `url` or `src` string). JSON Feed, RSS and Atom ignore it: their
    ///   specs fix where images are.
    public init(imageKeyPath: String? = nil) {
        self.imageKeyPath = imageKeyPath
    }

    /// The images of the feed in `bytes`.
    ///
    /// Items keep the feed's order; an item's image URLs are absolute, without duplicates within the item
    /// (the same URL may appear in several items). Items without an image, or whose images were all
    /// refused, are left out. A feed whose images were all refused is returned with no items and its
    /// `refused` list, so the caller can say why.
    ///
    /// - Parameters:
    ///   - bytes: The document, UTF-8 for JSON; XML may declare another encoding.
    ///   - source: Where the document came from: an `http(s)://` URL, a `file://` URL, or a path (relative
    ///     ones are taken from the current directory). Relative image URLs resolve against it.
    /// - Throws: `FeedError`: malformed JSON or XML with the line and column, an unexpected structure with
    ///   its JSON path, an unrecognised format, refused XML, `noImages` when no item names an image, or
    ///   `libraryUnavailable` when libxml2 (for XML) or libcurl (for web URLs) cannot be loaded.
    public func parse(_ bytes: [UInt8], source: String) throws(FeedError) -> Feed {
        let origin = try FeedSource(source, currentDirectory: Self.currentDirectory)
        let document = try read(bytes)
        return try feed(from: document, origin: origin)
    }

    private func read(_ bytes: [UInt8]) throws(FeedError) -> FeedDocument {
        if XMLFeedReader.startsWithMarkupInAnotherEncoding(bytes) {
            return try XMLFeedReader.read(bytes, from: 0)
        }
        var start = bytes.starts(with: UTF8.byteOrderMark) ? UTF8.byteOrderMark.count : 0
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) {
            start += 1
        }
        guard start < bytes.count else { throw .unrecognized(reason: "the document is empty") }
        switch bytes[start] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let value = try JSONReader.parse(bytes)
            if JSONFeedReader.recognizes(value), case .object(let members) = value {
                return try JSONFeedReader.read(members)
            }
            let keyPath = imageKeyPath.map { $0.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }
            return try PlainJSONReader(imageKeyPath: keyPath).read(value)
        case UInt8(ascii: "<"):
            return try XMLFeedReader.read(bytes, from: start)
        case 0xFE, 0xFF:
            throw .unrecognized(reason: "the document is UTF-16 (it starts with a UTF-16 byte-order mark); save it as UTF-8")
        case let first:
            let shown = (0x21...0x7E).contains(first)
                ? "“\(Character(Unicode.Scalar(first)))”" : "the byte 0x\(String(first, radix: 16, uppercase: true))"
            throw .unrecognized(reason: "the document starts with \(shown), neither JSON (“{” or “[”) nor XML (“<”)")
        }
    }

    private func feed(from document: FeedDocument, origin: FeedSource) throws(FeedError) -> Feed {
        var items: [FeedItem] = []
        var refused: [RefusedImage] = []
        var alreadyRefused = Set<RefusedImage>()
        var namesAnImage = false
        for entry in document.entries {
            var urls: [String] = []
            for reference in entry.imageReferences {
                guard let resolution = try origin.resolve(reference) else { continue }
                namesAnImage = true
                switch resolution {
                case .accepted(let url):
                    if !urls.contains(url) { urls.append(url) }
                case .refused(let image):
                    // One report per URL, however many items repeat it.
                    if alreadyRefused.insert(image).inserted { refused.append(image) }
                }
            }
            if !urls.isEmpty {
                items.append(FeedItem(title: Self.cleanTitle(entry.title), imageURLs: urls))
            }
        }
        guard namesAnImage else { throw .noImages }
        return Feed(format: document.format, title: Self.cleanTitle(document.title), items: items, refused: refused)
    }

    /// Titles without surrounding whitespace (XML titles often sit on their own lines); blank is none.
    private static func cleanTitle(_ title: String?) -> String? {
        guard let trimmed = title?.trimmingWhitespace(), !trimmed.isEmpty else { return nil }
        return String(trimmed)
    }

    /// The process's current directory, `""` when it cannot be read (it was removed).
    private static var currentDirectory: String {
        guard let path = getcwd(nil, 0) else { return "" }
        defer { free(path) }
        return String(cString: path)
    }
}
