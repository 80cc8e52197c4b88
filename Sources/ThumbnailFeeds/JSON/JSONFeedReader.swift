/// Reads a JSON Feed (https://jsonfeed.org/version/1.1): per item `image`, `banner_image` and the
/// attachments whose `mime_type` is `image/*`.
///
/// The spec fixes the type of every field used, so a field of the wrong type is an `unexpectedStructure`
/// error with its path; a missing or null optional field is simply absent.
enum JSONFeedReader {
    static let versionPrefix = "https://jsonfeed.org/version/"

    /// Whether `value` is a JSON Feed: an object whose `version` starts with `versionPrefix`.
    static func recognizes(_ value: JSONValue) -> Bool {
        guard case .object(let members) = value, case .string(let version)? = members["version"] else { return false }
        return version.hasPrefix(versionPrefix)
    }

    /// The members read of a JSON Feed's top-level object (`JSONSelection.documentMembers`).
    static let documentMembers: Set = ["version", "title", "items"]
    /// The members read of an item's objects: the item's images and title, an attachment's type and URL.
    static let itemMembers: Set = ["image", "banner_image", "attachments", "title", "mime_type", "url"]

    /// Reads the feed whose top-level members (as `documentMembers` keeps them) are `feed`, handing each
    /// item of `document` to `onEntry` as it is read.
    static func read(_ feed: [String: JSONValue], in document: FeedBytes,
                     onEntry: @escaping (FeedDocument.Entry) throws(FeedError) -> Void) throws(FeedError) -> FeedDocument {
        guard let items = feed["items"], items != .null else {
            throw .unexpectedStructure(path: "$.items", reason: "a JSON Feed needs an items array, and it is missing")
        }
        guard case .array = items else {
            throw .unexpectedStructure(path: "$.items", reason: "expected an array, found \(items.kindDescription)")
        }
        let title = try string("title", in: feed, at: "$")
        let list = JSONSelection.List.member("items")
        var reader = try JSONReader(document, selection: JSONSelection(
            list: list, documentMembers: [], itemMembers: itemMembers,
            onItem: { (element: JSONValue, index: Int) throws(FeedError) in
                let path = list.path(of: index)
                guard case .object(let item) = element else {
                    throw .unexpectedStructure(path: path, reason: "expected an item object, found \(element.kindDescription)")
                }
                try onEntry(try entry(item, at: path))
            }))
        _ = try reader.read()
        return FeedDocument(format: .jsonFeed, title: title)
    }

    private static func entry(_ item: [String: JSONValue], at path: String) throws(FeedError) -> FeedDocument.Entry {
        var references = [try string("image", in: item, at: path), try string("banner_image", in: item, at: path)]
            .compactMap { $0 }
        switch item["attachments"] {
        case nil, .null?:
            break
        case .array(let attachments)?:
            for (index, element) in attachments.enumerated() {
                let attachmentPath = "\(path).attachments[\(index)]"
                guard case .object(let attachment) = element else {
                    throw .unexpectedStructure(path: attachmentPath,
                                               reason: "expected an attachment object, found \(element.kindDescription)")
                }
                let mimeType = try string("mime_type", in: attachment, at: attachmentPath)
                if MediaType.isImage(mimeType),
                   let url = try string("url", in: attachment, at: attachmentPath) {
                    references.append(url)
                }
            }
        case let other?:
            throw .unexpectedStructure(path: "\(path).attachments", reason: "expected an array, found \(other.kindDescription)")
        }
        return FeedDocument.Entry(title: try string("title", in: item, at: path), imageReferences: references)
    }

    /// The string member `key`, `nil` when it is missing or null.
    private static func string(_ key: String, in object: [String: JSONValue], at path: String) throws(FeedError) -> String? {
        switch object[key] {
        case nil, .null?:
            nil
        case .string(let text)?:
            text
        case let other?:
            throw .unexpectedStructure(path: "\(path).\(key)", reason: "expected a string, found \(other.kindDescription)")
        }
    }
}
