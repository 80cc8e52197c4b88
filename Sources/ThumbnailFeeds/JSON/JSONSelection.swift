/// What a `JSONReader` keeps of a document: feeds are read for a few members, and their items are
/// handed over one at a time, so memory holds one item, never the whole list.
///
/// Everything is still read and checked (well-formedness, depth); what is not kept is dropped as it is
/// read. A container read but not kept is an empty one of its kind, so a message can still say what was
/// found there.
struct JSONSelection {
    /// Where a document's items are.
    enum List: Equatable {
        /// The document is the array of items.
        case root
        /// The top-level object's member of this name is the array of items.
        case member(String)

        /// The JSON path of item `index`, e.g. `$.items[3]`.
        func path(of index: Int) -> String {
            switch self {
            case .root: "$[\(index)]"
            case .member(let name): "$.\(name)[\(index)]"
            }
        }
    }

    /// Where the items are, handed to `onItem`; `nil` when items are not read (they are then dropped).
    var list: List?
    /// The top-level object's members kept, shallowly (a container as an empty one of its kind); `nil`
    /// keeps the whole document, with no item limit: for tests of the reader itself.
    var documentMembers: Set<String>?
    /// The members kept of the objects in an item, at any depth; `nil` keeps them all.
    var itemMembers: Set<String>?
    /// Called with each item of `list` as it is read, and its index.
    var onItem: (JSONValue, Int) throws(FeedError) -> Void = { _, _ in }

    /// The whole document, kept.
    static var everything: JSONSelection { JSONSelection(list: nil, documentMembers: nil, itemMembers: nil) }
}
