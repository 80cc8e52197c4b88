import CommandLineSupport
import ThumbnailHTTP
import ThumbnailKit

extension PipelineWiring {
    /// What `warm` and `browse` share: the disk cache the command opened, the
    /// feed options' transport (address policy, timeouts), retries and
    /// download cap, and the store with `--store-originals`.
    init(source: FeedOptions, diskCache: DiskCache, store: StoreOptions, objectStore: S3ObjectStore?) {
        self.init(diskCache: diskCache, transport: source.imageTransport)
        retryPolicy = source.retryPolicy
        maximumDownloadBytes = source.maxDownloadBytes.bytes
        self.objectStore = objectStore
        keepsOriginalsInObjectStore = store.storeOriginals
    }
}
