import ThumbnailKit

/// A reusable row that owns its thumbnail's load: configuring it for another
/// item cancels the load it had, and only its current item's states reach it.
@MainActor final class PhotoRow {
    let loader: ThumbnailRowLoader
    private(set) var caption = ""

    init(provider: any ThumbnailProviding) {
        loader = ThumbnailRowLoader(provider: provider)
    }

    /// Called by the list as the row is shown for `url` (a first time or after reuse).
    func show(_ url: String) {
        loader.load(ThumbnailRequest(url: url, size: .fit(128), priority: .visible))
    }

    /// Called by the list as the row scrolls away: cancelled, back to idle.
    func prepareForReuse() {
        loader.prepareForReuse()
        caption = ""
    }

    /// Follows the row's states; a view would draw each one.
    func follow() async {
        for await state in loader.state {
            switch state {
            case .idle: caption = ""
            case let .loading(progress): caption = "\(progress?.percent ?? 0) %"
            case let .loaded(thumbnail): caption = "\(thumbnail.source.width)×\(thumbnail.source.height)"
            case let .failure(error): caption = "failed: \(error) (tap to retry)"
            }
        }
    }
}
