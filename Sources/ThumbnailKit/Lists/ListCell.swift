/// A reusable row object, as a table view's cell: the list keeps a small pool
/// of them and hands each to whichever row scrolls into view.
@MainActor public final class ListCell: Identifiable {
    /// Which object of the pool this is (stable across reuse).
    public let id: Int
    /// The row's thumbnail and its loading state.
    public let thumbnail: ThumbnailRowLoader
    /// The row's text (an item's title or file name), set by its data source.
    public var title = ""
    /// How many times the cell has been handed to a row.
    public internal(set) var useCount = 0

    init(id: Int, pipeline: ThumbnailPipeline) {
        self.id = id
        thumbnail = ThumbnailRowLoader(pipeline: pipeline)
    }

    /// Clears everything a previous row left: cancels its load, drops its image and text.
    func prepareForReuse() {
        thumbnail.prepareForReuse()
        title = ""
    }
}
