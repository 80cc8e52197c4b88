import ThumbnailKit
import ThumbnailTerminal

/// The feed as ``ListBrowser`` rows, as a ``Loadable``: each load fetches the
/// feed once and parses it into rows on disk (``FeedRows``). `browse` retries
/// it with a ``RetryableLoader``, so the fetch itself must not retry
/// (``FeedSource`` makes one request, the HTTP loader retries no status): one
/// request per attempt shown on screen.
final class FeedItemsLoader: BaseLoadable<any BrowserItems> {
    private let source: FeedSource
    private let loader: any DataLoading

    init(source: FeedSource, loader: any DataLoading) {
        self.source = source
        self.loader = loader
        super.init()
    }

    override func fetch() async throws -> any BrowserItems {
        try await source.rows(with: loader)
    }
}
