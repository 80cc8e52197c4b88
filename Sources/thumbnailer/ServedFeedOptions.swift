import ArgumentParser
import CommandLineSupport
import ThumbnailServer

/// `serve --feed`: the feed listed as a web page at `/`, with `/feed.json`.
struct ServedFeedOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "A feed (http(s):// URL, file:// URL or path) to list at / as a web page, with its items at /feed.json.",
        discussion: "Read once, at start, before the server listens; a feed that cannot be read exits 2."))
    var feed: String?

    @Option(help: "In a plain-JSON --feed, the dotted path of each object's image URL, e.g. media.large.href.")
    var imageKey: String?

    @Option(help: "The largest --feed read, counted as it arrives, e.g. 64M (at least 1 byte).")
    var maxFeedBytes = ByteCount(bytes: 32 << 20)

    func validate() throws {
        try LimitOption.validate(maxFeedBytes.bytes, "--max-feed-bytes", unit: "byte")
    }

    /// The feed's page, its items parsed to disk, or `nil` without `--feed`.
    /// - Throws: ``CommandFailure`` (exit status 2) when the feed cannot be fetched or read.
    func page(thumbnails: ThumbnailServer, transfer: TransportOptions) async throws -> FeedPage? {
        guard let feed else { return nil }
        let rows = try await FeedSource(location: feed, imageKeyPath: imageKey, maximumBytes: maxFeedBytes.bytes)
            .rows(with: transfer.makeFeedLoader())
        return FeedPage(items: rows, title: rows.title, thumbnails: thumbnails)
    }
}

extension FeedRows: ListedItems {
    func item(at index: Int) -> ListedItem {
        let row = self[index]
        return ListedItem(title: row.title, imageURL: row.imageURL)
    }
}
