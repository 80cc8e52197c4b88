/// Reads JSON that is no feed format: an array of image URLs, or of objects that name an image, bare or
/// under `items`, `data` or `results`, as web APIs return lists.
///
/// Without a key path the image field is guessed, so an object without any of the known keys is skipped
/// rather than refused; with a key path, only that field counts.
struct PlainJSONReader {
    /// Keys that name an item's image, in the order they are tried.
    static let imageKeys = ["image", "imageURL", "imageUrl", "image_url", "url", "thumbnail", "thumbnailUrl",
                            "thumbnail_url", "src"]
    /// Keys under which a top-level object holds the list, in the order they are tried.
    static let listKeys = ["items", "data", "results"]

    /// The dot-separated path to each object's image URL, e.g. `["media", "large", "href"]`, or `nil` to guess.
    var imageKeyPath: [String]?

    /// The members read of a top-level object (`JSONSelection.documentMembers`): where the list may be.
    static let documentMembers = Set(listKeys)

    /// The members read of an item's objects: where its image and title may be.
    var itemMembers: Set<String> {
        Set(imageKeyPath ?? Self.imageKeys + ["url", "src"]).union(["title", "name"])
    }

    /// Reads the document whose top-level value (as `documentMembers` keeps it) is `root`, handing each
    /// item of `document` to `onEntry` as it is read.
    func read(_ root: JSONValue, in document: FeedBytes,
              onEntry: @escaping (FeedDocument.Entry) throws(FeedError) -> Void) throws(FeedError) -> FeedDocument {
        let list = try list(in: root)
        var reader = try JSONReader(document, selection: JSONSelection(
            list: list, documentMembers: [], itemMembers: itemMembers,
            onItem: { (element: JSONValue, index: Int) throws(FeedError) in
                let path = list.path(of: index)
                switch element {
                case .string(let url):
                    try onEntry(FeedDocument.Entry(title: nil, imageReferences: [url]))
                case .object(let object):
                    if let url = try imageURL(in: object, at: path) {
                        try onEntry(FeedDocument.Entry(title: title(of: object), imageReferences: [url]))
                    }
                default:
                    throw .unexpectedStructure(path: path,
                                               reason: "expected an image URL or an object, found \(element.kindDescription)")
                }
            }))
        _ = try reader.read()
        return FeedDocument(format: .plainJSON, title: nil)
    }

    /// Where the list of items is.
    private func list(in root: JSONValue) throws(FeedError) -> JSONSelection.List {
        switch root {
        case .array:
            return .root
        case .object(let members):
            guard let key = Self.listKeys.first(where: { members[$0] != nil }), let value = members[key] else {
                throw .unexpectedStructure(path: "$", reason: "expected an array of images, or an object with one under "
                                           + Self.listKeys.map { "“\($0)”" }.joined(separator: ", "))
            }
            guard case .array = value else {
                throw .unexpectedStructure(path: "$.\(key)", reason: "expected an array, found \(value.kindDescription)")
            }
            return .member(key)
        default:
            throw .unexpectedStructure(path: "$", reason: "expected an array or an object, found \(root.kindDescription)")
        }
    }

    private func imageURL(in object: [String: JSONValue], at path: String) throws(FeedError) -> String? {
        guard let imageKeyPath else {
            return Self.imageKeys.lazy.compactMap { Self.url(in: object[$0]) }.first
        }
        var value = JSONValue.object(object)
        for key in imageKeyPath {
            switch value {
            case .object(let members):
                guard let member = members[key] else { return nil }
                value = member
            // A numeric key indexes an array, so `images.0.url` reaches into a list of images.
            case .array(let elements):
                guard let index = Int(key), elements.indices.contains(index) else { return nil }
                value = elements[index]
            default:
                return nil
            }
        }
        switch value {
        case .null:
            return nil
        case .string(let url):
            return url
        default:
            let keyPath = imageKeyPath.joined(separator: ".")
            throw .unexpectedStructure(
                path: "\(path).\(keyPath)",
                reason: "expected an image URL at the image key path “\(keyPath)”, found \(value.kindDescription)")
        }
    }

    /// A non-blank string, or an object's `url` or `src` string (as in `"image": {"url": …, "width": …}`).
    private static func url(in value: JSONValue?) -> String? {
        switch value {
        case .string?:
            nonBlankString(value)
        case .object(let members)?:
            nonBlankString(members["url"]) ?? nonBlankString(members["src"])
        default:
            nil
        }
    }

    private static func nonBlankString(_ value: JSONValue?) -> String? {
        guard case .string(let text)? = value, !text.allSatisfy(\.isWhitespace) else { return nil }
        return text
    }

    private func title(of object: [String: JSONValue]) -> String? {
        for key in ["title", "name"] {
            if case .string(let title)? = object[key] { return title }
        }
        return nil
    }
}
