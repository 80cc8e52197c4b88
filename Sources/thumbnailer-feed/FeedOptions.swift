import ArgumentParser
import CommandLineSupport
import ThumbnailFeeds
import ThumbnailHTTP
import ThumbnailKit

/// What warm and browse both take: the feed, where the cache is and how big
/// it may grow, how to read plain JSON.
struct FeedOptions: ParsableArguments {
    @Argument(help: "The feed: an http(s):// URL, a file:// URL or a path.")
    var feed: String

    @Option(help: "Cache directory (default: $THUMBNAILER_CACHE_DIR, else $XDG_CACHE_HOME/thumbnailer or ~/.cache/thumbnailer).")
    var cacheDir: String?

    @Option(help: "The disk cache's size limit, e.g. 512M or 2G.")
    var diskLimit = ByteCount(bytes: 1 << 30)

    @Option(help: "In plain JSON, the dotted path of each object's image URL, e.g. media.large.href.")
    var imageKey: String?

    /// HTTP for web URLs, files for the rest.
    var loader: SchemeRoutingDataLoader { SchemeRoutingDataLoader(network: URLSessionDataLoader()) }

    /// Opens (creating if needed) the disk cache; a failure exits 1.
    func openCache() throws -> DiskCache {
        do {
            return try DiskCache(directory: cacheDir ?? CacheLocation.defaultDirectory(), sizeLimit: diskLimit.bytes)
        } catch {
            throw CommandFailure("cannot use the cache: \(error)", exitCode: 1)
        }
    }

    /// Fetches and parses the feed; a failure exits 2.
    func loadFeed(with loader: any DataLoading) async throws -> Feed {
        try await FeedSource(location: feed, imageKeyPath: imageKey).load(with: loader)
    }
}
