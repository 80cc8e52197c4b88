/// The roles of a row that shows one image and a title: it configures the cell
/// to load the image at visible priority and prefetches it at prefetch priority.
/// (It needs no delegate role: the cell's load stops with the cell's reuse, and
/// the list stops the prefetch of a row that leaves.)
///
/// The cell's content is a ``ThumbnailRowLoader`` (the one a previous row left
/// in the cell, or a new one). A prefetch and the cell's own load of the same
/// image are coalesced by a ``ThumbnailPipeline`` into one download and one decode: a row that becomes visible while
/// its prefetch runs adopts that work (and raises it to visible priority).
@MainActor public final class ThumbnailRowController: RowDataSource, RowPrefetching {
    /// What the row shows (its priority is set per use).
    public let request: ThumbnailRequest
    /// The row's text.
    public let title: String
    private let provider: any ThumbnailProviding
    private var prefetchTask: Task<Void, Never>?

    /// - Parameters:
    ///   - request: the row's image, at the size it is shown (its priority is set per use).
    ///   - title: the row's text, put in its cell's ``ListCell/title``.
    ///   - provider: where the row's thumbnail comes from (a ``ThumbnailPipeline``).
    public init(request: ThumbnailRequest, title: String, provider: any ThumbnailProviding) {
        self.request = request
        self.title = title
        self.provider = provider
    }

    isolated deinit {
        prefetchTask?.cancel()
    }

    public func configure(_ cell: ListCell) {
        cell.title = title
        var visible = request
        visible.priority = .visible
        cell.content(orMake: { ThumbnailRowLoader(provider: provider) }).load(visible)
    }

    public func prefetch() {
        var prefetch = request
        prefetch.priority = .prefetch
        guard prefetchTask == nil, provider.cachedThumbnail(for: prefetch) == nil else { return }
        prefetchTask = Task { [weak self, provider] in
            // A failed prefetch is not reported: the row's own load will meet the error and show it.
            _ = try? await provider.thumbnail(for: prefetch)
            if !Task.isCancelled { self?.prefetchTask = nil }
        }
    }

    public func cancelPrefetch() {
        prefetchTask?.cancel()
        prefetchTask = nil
    }
}
