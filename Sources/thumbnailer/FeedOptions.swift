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

    @OptionGroup var cache: CacheOptions

    @Option(help: "In plain JSON, the dotted path of each object's image URL, e.g. media.large.href.")
    var imageKey: String?

    @Option(help: """
        Image hosts that resolve to loopback, private or link-local addresses: allow or refuse. \
        Default: refuse for a feed on the web (a feed must not reach the machine's or the network's \
        private services), allow for a local feed or one on localhost or a private address.
        """)
    var privateAddresses: AddressChoice?

    @Option(help: "The largest feed read, from the web or a file, announced or counted as it arrives, e.g. 64M (at least 1 byte; no unlimited).")
    var maxFeedBytes = ByteCount(bytes: 32 << 20)

    @OptionGroup var transfer: TransportOptions

    /// Allow or refuse private addresses.
    enum AddressChoice: String, ExpressibleByArgument {
        case allow, refuse
    }

    func validate() throws {
        try cache.validateUsable()
        try LimitOption.validate(maxFeedBytes.bytes, "--max-feed-bytes", unit: "byte")
    }

    /// The address policy: as asked, else as ``HTTPDataLoader/AddressPolicy/default(forFeedAt:)`` decides.
    var addressPolicy: HTTPDataLoader.AddressPolicy {
        switch privateAddresses {
        case .allow?: .any
        case .refuse?: .publicOnly
        case nil: .default(forFeedAt: feed)
        }
    }

    /// How images are downloaded: the speed floor and time limits asked for, with ``addressPolicy``.
    var imageTransport: HTTPDataLoader.Configuration { transfer.transport(addressPolicy: addressPolicy) }

    /// Fetches and parses the feed, gathering the images of `shard`; a failure exits 2.
    func loadImages(in shard: WarmShard) async throws -> FeedImageList {
        try await FeedSource(location: feed, imageKeyPath: imageKey, maximumBytes: maxFeedBytes.bytes)
            .images(in: shard, with: makeFeedLoader())
    }

    /// What fetches the feed: ``TransportOptions/makeFeedLoader()``.
    func makeFeedLoader() throws -> SchemeRoutingDataLoader {
        try transfer.makeFeedLoader()
    }
}
