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

    func read(_ root: JSONValue) throws(FeedError) -> FeedDocument {
        let (elements, listPath) = try list(in: root)
        var entries: [FeedDocument.Entry] = []
        for (index, element) in elements.enumerated() {
            let path = "\(listPath)[\(index)]"
            switch element {
            case .string(let url):
                entries.append(FeedDocument.Entry(title: nil, imageReferences: [url]))
            case .object(let object):
                if let url = try imageURL(in: object, at: path) {
                    entries.append(FeedDocument.Entry(title: title(of: object), imageReferences: [url]))
                }
            default:
                throw .unexpectedStructure(path: path,
                                           reason: "expected an image URL or an object, found \(element.kindDescription)")
            }
        }
        return FeedDocument(format: .plainJSON, title: nil, entries: entries)
    }

    /// The array of items and its JSON path.
    private func list(in root: JSONValue) throws(FeedError) -> ([JSONValue], String) {
        switch root {
        case .array(let elements):
            return (elements, "$")
        case .object(let members):
            guard let key = Self.listKeys.first(where: { members[$0] != nil }), let value = members[key] else {
                throw .unexpectedStructure(path: "$", reason: "expected an array of images, or an object with one under "
                                           + Self.listKeys.map { "“\($0)”" }.joined(separator: ", "))
            }
            guard case .array(let elements) = value else {
                throw .unexpectedStructure(path: "$.\(key)", reason: "expected an array, found \(value.kindDescription)")
            }
            return (elements, "$.\(key)")
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
