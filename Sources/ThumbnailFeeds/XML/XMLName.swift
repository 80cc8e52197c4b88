/// An XML element's name once namespaces are processed: `<media:content>` is
/// `XMLName(namespace: "http://search.yahoo.com/mrss/", local: "content")`.
struct XMLName: Hashable {
    /// The namespace URI, `""` for an element in no namespace (as RSS 2.0's own elements are).
    var namespace: String
    var local: String
}
