import CommandLineSupport
import ThumbnailHTTP
import ThumbnailKit

extension PipelineWiring {
    /// What `warm` and `browse` share: the disk cache the command opened, the
    /// feed options' transport (address policy, timeouts), retries and
    /// download cap, and the store with `--store-originals`.
    init(source: FeedOptions, diskCache: DiskCache, store: StoreOptions, objectStore: S3ObjectStore?) {
        self.init(diskCache: diskCache, transport: source.imageTransport)
        apply(source.transfer)
        self.objectStore = objectStore
        keepsOriginalsInObjectStore = store.storeOriginals
    }

    /// The retries and download cap of `transfer`; its timeouts are the transport's, which the caller builds with its address policy.
    mutating func apply(_ transfer: TransportOptions) {
        retryPolicy = transfer.retryPolicy
        maximumDownloadBytes = transfer.maxDownloadBytes.bytes
    }
}
