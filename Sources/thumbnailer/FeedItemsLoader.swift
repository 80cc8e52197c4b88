import ThumbnailKit
import ThumbnailTerminal

/// The feed as ``ListBrowser`` rows, as a ``Loadable``: each load fetches the
/// feed once and parses it. `browse` retries it with a ``RetryableLoader``, so
/// the fetch itself must not retry (``FeedSource`` makes one request, the
/// HTTP loader retries no status): one request per attempt shown on screen.
final class FeedItemsLoader: BaseLoadable<[ListBrowser.Item]> {
    private let source: FeedSource
    private let loader: any DataLoading

    init(source: FeedSource, loader: any DataLoading) {
        self.source = source
        self.loader = loader
        super.init()
    }

    override func fetch() async throws -> [ListBrowser.Item] {
        try await source.load(with: loader).items.map { item in
            ListBrowser.Item(title: item.title ?? Self.fileName(of: item.imageURLs[0]), imageURL: item.imageURLs[0])
        }
    }

    /// The last path component, percent-escapes and all: a title for an untitled item.
    private static func fileName(of url: String) -> String {
        String(url.split(separator: "/").last ?? Substring(url))
    }
}
