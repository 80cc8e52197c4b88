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
package struct FeedParser: Sendable {
    /// The dot-separated path to each object's image URL in plain JSON, e.g. `media.large.href`, or `nil`
    /// (the default) to try the usual keys (`image`, `imageURL`, `url`, `thumbnail`, `src`, …).
    package var imageKeyPath: String?

    /// - Parameter imageKeyPath: For plain JSON only, the dot-separated path to each object's image URL
    ///   (e.g. `media.large.href`; a numeric part indexes an array, as in `images.0.url`). Objects without
    ///   it are skipped. Defaults to `nil`: the image is found under the first of `image`, `imageURL`,
    ///   `imageUrl`, `image_url`, `url`, `thumbnail`, `thumbnailUrl`, `thumbnail_url`, `src` that holds a
    ///   URL string (or an object with a `url` or `src` string). JSON Feed, RSS and Atom ignore it: their
    ///   specs fix where images are.
    package init(imageKeyPath: String? = nil) {
        self.imageKeyPath = imageKeyPath
    }

    /// The images of the feed in `bytes`, all held at once: for feeds a list shows whole.
    ///
    /// Items keep the feed's order; an item's image URLs are absolute, without duplicates within the item
    /// (the same URL may appear in several items). Items without an image, or whose images were all
    /// refused, are left out. A feed whose images were all refused is returned with no items and its
    /// `refused` list (each URL once), so the caller can say why.
    ///
    /// - Parameters:
    ///   - bytes: The document, UTF-8 for JSON; XML may declare another encoding.
    ///   - source: Where the document came from: an `http(s)://` URL, a `file://` URL, or a path (relative
    ///     ones are taken from the current directory). Relative image URLs resolve against it.
    /// - Throws: `FeedError`: malformed JSON or XML with the line and column, an unexpected structure with
    ///   its JSON path, an unrecognised format, refused XML, `noImages` when no item names an image, or
    ///   `libraryUnavailable` when libxml2 (for XML) or libcurl (for web URLs) cannot be loaded.
    package func parse(_ bytes: [UInt8], source: String) throws(FeedError) -> Feed {
        try parse(FeedBytes(bytes), source: source)
    }

    /// The images of the feed in `document` (in memory or in a file), all held at once, as
    /// ``parse(_:source:)-([UInt8],_)`` reads them.
    package func parse(_ document: FeedBytes, source: String) throws(FeedError) -> Feed {
        var items: [FeedItem] = []
        var refused: [RefusedImage] = []
        var alreadyRefused = Set<RefusedImage>()
        let outline = try parse(document, source: source, onItem: { items.append($0) }, onRefused: { image in
            // One report per URL, however many items repeat it.
            if alreadyRefused.insert(image).inserted { refused.append(image) }
        })
        return Feed(format: outline.format, title: outline.title, items: items, refused: refused)
    }

    /// Reads the feed in `document`, handing each item to `onItem` as it is read, so that memory holds one
    /// item at a time (see `FeedLimits`), never the list, whatever the feed's length.
    ///
    /// Items come as from ``parse(_:source:)-([UInt8],_)``. Each image URL that may not be fetched goes to
    /// `onRefused` as it is found, every time the feed names it. A malformed document may be found so
    /// after items were handed over: a caller that must not act on a bad feed collects first (JSON is
    /// checked whole before its first item; XML as it is read).
    ///
    /// - Returns: The feed's format and title.
    /// - Throws: As ``parse(_:source:)-([UInt8],_)``, and ``FeedError/unreadable(reason:)`` when the
    ///   document cannot be read.
    package func parse(_ document: FeedBytes, source: String, onItem: (FeedItem) -> Void,
                      onRefused: (RefusedImage) -> Void) throws(FeedError) -> FeedOutline {
        let origin = try FeedSource(source, currentDirectory: Self.currentDirectory)
        var namesAnImage = false
        let outline = try withoutActuallyEscaping(onItem) { onItem throws(FeedError) in
            try withoutActuallyEscaping(onRefused) { onRefused throws(FeedError) in
                try read(document) { (entry: FeedDocument.Entry) throws(FeedError) in
                    var urls: [String] = []
                    for reference in entry.imageReferences {
                        guard let resolution = try origin.resolve(reference) else { continue }
                        namesAnImage = true
                        switch resolution {
                        case .accepted(let url):
                            if !urls.contains(url) { urls.append(url) }
                        case .refused(let image):
                            onRefused(image)
                        }
                    }
                    if !urls.isEmpty {
                        onItem(FeedItem(title: Self.cleanTitle(entry.title), imageURLs: urls))
                    }
                }
            }
        }
        guard namesAnImage else { throw .noImages }
        return FeedOutline(format: outline.format, title: Self.cleanTitle(outline.title))
    }

    private func read(_ document: FeedBytes,
                      onEntry: @escaping (FeedDocument.Entry) throws(FeedError) -> Void) throws(FeedError) -> FeedDocument {
        let head = try document.bytes(in: 0..<4)
        if XMLFeedReader.startsWithMarkupInAnotherEncoding(head) {
            return try XMLFeedReader.read(document, from: 0, onEntry: onEntry)
        }
        var cursor = ByteCursor(document, offset: head.starts(with: UTF8.byteOrderMark) ? UTF8.byteOrderMark.count : 0)
        while let byte = cursor.peek(), [0x20, 0x09, 0x0A, 0x0D].contains(byte) {
            cursor.advance()
        }
        if let readError = cursor.readError { throw readError }
        let start = cursor.offset
        guard let first = cursor.peek() else { throw .unrecognized(reason: "the document is empty") }
        switch first {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            // The structure first, checked whole: whether it is a JSON Feed (its version may come after its
            // items), and where its items are; then the items.
            let documentMembers = JSONFeedReader.documentMembers.union(PlainJSONReader.documentMembers)
            var structure = try JSONReader(document, selection: JSONSelection(list: nil, documentMembers: documentMembers))
            let root = try structure.read()
            if JSONFeedReader.recognizes(root), case .object(let members) = root {
                return try JSONFeedReader.read(members, in: document, onEntry: onEntry)
            }
            let keyPath = imageKeyPath.map { $0.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }
            return try PlainJSONReader(imageKeyPath: keyPath).read(root, in: document, onEntry: onEntry)
        case UInt8(ascii: "<"):
            return try XMLFeedReader.read(document, from: start, onEntry: onEntry)
        case 0x00 where head == [0x00, 0x00, 0xFE, 0xFF], 0xFF where head == [0xFF, 0xFE, 0x00, 0x00]:
            throw .unrecognized(reason: "the document is UTF-32 (it starts with a UTF-32 byte-order mark); save it as UTF-8")
        case 0xFE, 0xFF:
            throw .unrecognized(reason: "the document is UTF-16 (it starts with a UTF-16 byte-order mark); save it as UTF-8")
        case let first:
            let shown = (0x21...0x7E).contains(first)
                ? "“\(Character(Unicode.Scalar(first)))”" : "the byte 0x\(String(first, radix: 16, uppercase: true))"
            throw .unrecognized(reason: "the document starts with \(shown), neither JSON (“{” or “[”) nor XML (“<”)")
        }
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
