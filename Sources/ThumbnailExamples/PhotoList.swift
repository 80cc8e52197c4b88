import ThumbnailKit

/// A headless list of photos: a fixed pool of cells for the rows in view, and
/// the next rows prefetched at low priority. A front end calls `scrolled(to:)`.
@MainActor final class PhotoList {
    let list: ListController
    private let rowsInView = 10

    init(urls: [String], pipeline: ThumbnailPipeline) {
        list = ListController(rowCount: urls.count) { index in
            RowController(ThumbnailRowController(request: ThumbnailRequest(url: urls[index], size: .fit(128)),
                                                 title: urls[index], provider: pipeline))
        }
    }

    /// The first row in view is now `top`: its cells load at visible priority,
    /// the next screenful is prefetched, rows that left are cancelled and reused.
    func scrolled(to top: Int) {
        let shown = top..<min(top + rowsInView, list.rowCount)
        list.display(rows: shown)
        list.prefetch(rows: shown.upperBound..<min(shown.upperBound + rowsInView, list.rowCount))
    }
}
