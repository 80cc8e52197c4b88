/// The roles of a row that shows one image and a title: it configures the cell
/// to load the image at visible priority and prefetches it at prefetch priority.
/// (It needs no delegate role: the cell's load stops with the cell's reuse, and
/// the list stops the prefetch of a row that leaves.)
///
/// A prefetch and the cell's own load of the same image are coalesced by the
/// pipeline into one download and one decode: a row that becomes visible while
/// its prefetch runs adopts that work (and raises it to visible priority).
@MainActor public final class ThumbnailRowController: RowDataSource, RowPrefetching {
    /// What the row shows (its priority is set per use).
    public let request: ThumbnailRequest
    public let title: String
    private let pipeline: ThumbnailPipeline
    private var prefetchTask: Task<Void, Never>?

    public init(request: ThumbnailRequest, title: String, pipeline: ThumbnailPipeline) {
        self.request = request
        self.title = title
        self.pipeline = pipeline
    }

    isolated deinit {
        prefetchTask?.cancel()
    }

    public func configure(_ cell: ListCell) {
        cell.title = title
        var visible = request
        visible.priority = .visible
        cell.thumbnail.load(visible)
    }

    public func prefetch() {
        var prefetch = request
        prefetch.priority = .prefetch
        guard prefetchTask == nil, pipeline.cachedThumbnail(for: prefetch) == nil else { return }
        prefetchTask = Task { [weak self, pipeline] in
            // A failed prefetch is not reported: the row's own load will meet the error and show it.
            _ = try? await pipeline.thumbnail(for: prefetch)
            if !Task.isCancelled { self?.prefetchTask = nil }
        }
    }

    public func cancelPrefetch() {
        prefetchTask?.cancel()
        prefetchTask = nil
    }
}
