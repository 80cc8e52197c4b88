/// Why a document could not be read as a feed. Each description says where, e.g.
/// "malformed JSON at line 3, column 14: expected “,” or “}” after an object member, found “]”".
package enum FeedError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `source` is not an `http(s)://` URL, a `file://` URL or a path, so relative image URLs cannot be resolved.
    case invalidSource(source: String, reason: String)
    /// The JSON is not well-formed; line and column (from 1, counting characters) of the first error.
    case malformedJSON(line: Int, column: Int, reason: String)
    /// The XML is not well-formed; line and column where libxml2 detected the first error, which for a
    /// mismatched end tag is just after that tag.
    case malformedXML(line: Int, column: Int, reason: String)
    /// The XML declares an entity, which is refused where libxml2 reads the declaration (see `FeedParser`);
    /// line and column are those of the declaration's end.
    case unsafeXML(line: Int, column: Int, reason: String)
    /// A value has the wrong type, e.g. a JSON Feed's `items` is not an array; `path` is a JSON path such as
    /// `$.items[3].attachments`.
    case unexpectedStructure(path: String, reason: String)
    /// The document is none of the formats read: not JSON or XML, or XML whose root is not RSS or Atom.
    case unrecognized(reason: String)
    /// The feed names no image URL at all.
    case noImages
    /// A library that reading this feed needs, libxml2 (XML) or libcurl (web URLs), could not be loaded,
    /// e.g. "libxml2 (libxml2.so.2) could not be loaded: libxml2.so.2: cannot open shared object file: No such
    /// file or directory". Both are loaded when first needed, not when the process starts.
    case libraryUnavailable(reason: String)
    /// The document could not be read back from where it was kept while parsing (a temporary file).
    case unreadable(reason: String)

    package var description: String {
        switch self {
        case .invalidSource(let source, let reason):
            "invalid feed source “\(source)”: \(reason)"
        case .malformedJSON(let line, let column, let reason):
            "malformed JSON at line \(line), column \(column): \(reason)"
        case .malformedXML(let line, let column, let reason):
            "malformed XML at line \(line), column \(column): \(reason)"
        case .unsafeXML(let line, let column, let reason):
            "unsafe XML at line \(line), column \(column): \(reason)"
        case .unexpectedStructure(let path, let reason):
            "unexpected structure at \(path): \(reason)"
        case .unrecognized(let reason):
            "not a feed: \(reason)"
        case .noImages:
            "the feed names no images: no item has an image URL"
        case .libraryUnavailable(let reason), .unreadable(let reason):
            reason
        }
    }
}
