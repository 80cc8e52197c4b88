/// A reusable row object, as a table view's cell: the list keeps a small pool
/// of them and hands each to whichever row scrolls into view.
///
/// What a cell shows beyond its title is up to the rows: its ``content`` slot
/// holds whatever a row's data source put there (a ``ThumbnailRowLoader``, a
/// loader of anything else, nothing for a text row), kept across reuse so a
/// pool of cells is also a pool of loaders.
@MainActor public final class ListCell: Identifiable {
    /// Which object of the pool this is (stable across reuse).
    public let id: Int
    /// The row's text (an item's title or file name), set by its data source.
    public var title = ""
    /// What the row's data source shows in the cell besides its title; reset on reuse, not dropped.
    public private(set) var content: (any ReusableContent)?
    /// How many times the cell has been handed to a row.
    package internal(set) var useCount = 0

    init(id: Int) {
        self.id = id
    }

    /// The cell's content if it is a `Content`; otherwise a new one from
    /// `make`, which replaces what the cell held. A data source calls it in
    /// `configure(_:)`, as a table view dequeues: the loader a previous row
    /// left is reused.
    public func content<Content: ReusableContent>(orMake make: () -> Content) -> Content {
        if let content = content as? Content { return content }
        let made = make()
        content = made
        return made
    }

    /// The cell's content if it is a `Content`.
    public func content<Content: ReusableContent>(as type: Content.Type) -> Content? {
        content as? Content
    }

    /// Clears everything a previous row left: resets its content (cancelling its load) and drops its text.
    func prepareForReuse() {
        content?.prepareForReuse()
        title = ""
    }
}
