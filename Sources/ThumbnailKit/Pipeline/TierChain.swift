/// The pipeline's tiers, composed from its configuration, and the handles
/// the pipeline reads them by (its counters, queues and writes):
///
///     memory → thumbnail disk → object-store thumbnails → [app's] → sharing
///         ⇒ keeping → rendering ⇒ original disk → object-store originals → [app's] → retrying → download limit → network
///
/// A tier is left out when what it reads is not configured (no disk cache, no
/// object store, originals not kept in it).
struct TierChain: Sendable {
    /// What a request enters.
    let front: MemoryTier
    let stores: Stores
    /// The original tiers, from the original disk tier on.
    let originals: any OriginalProviding
    let sharing: SharingTier
    let renderer: ThumbnailRenderer
    let writes = StoredCopyWrites()
    let downloads: PriorityLimiter
    let statistics = StatisticsCounter()
    let keeper: CopyKeeper

    init(_ configuration: ThumbnailPipeline.Configuration,
         rendering: (any ThumbnailProviding) -> any ThumbnailProviding,
         fetching: (any OriginalProviding) -> any OriginalProviding) {
        let logger = configuration.logger
        let stores = Stores(configuration)
        self.stores = stores
        downloads = PriorityLimiter(limit: configuration.maximumConcurrentDownloads)
        renderer = ThumbnailRenderer(decoder: configuration.decoder,
                                     limiter: PriorityLimiter(limit: configuration.maximumConcurrentDecodes),
                                     largeLimiter: PriorityLimiter(limit: configuration.maximumConcurrentLargeDecodes),
                                     largeDecodeBytes: configuration.largeDecodeBytes, statistics: statistics)

        let network = NetworkTier(loader: configuration.dataLoader, statistics: statistics, logger: logger)
        var originals = fetching(RetryingTier(next: DownloadLimitingTier(next: network, limiter: downloads),
                                              policy: configuration.retryPolicy, statistics: statistics, logger: logger))
        if let inStore = stores.originalsInStore {
            originals = ObjectStoreOriginalTier(next: originals, originals: inStore, statistics: statistics, logger: logger)
        }
        if let onDisk = stores.originalsOnDisk {
            originals = OriginalDiskTier(next: originals, disk: onDisk, statistics: statistics, logger: logger)
        }
        self.originals = originals

        let keeper = CopyKeeper(stores: stores, encoder: configuration.encoder, writes: writes, logger: logger)
        self.keeper = keeper
        sharing = SharingTier(next: KeepingTier(
            next: RenderingTier(originals: originals, renderer: renderer,
                                maximumDownloadBytes: configuration.maximumDownloadBytes, logger: logger),
            keeper: keeper), writes: writes)
        var answering = rendering(sharing)
        if let inStore = stores.thumbnailsInStore {
            answering = ObjectStoreThumbnailTier(next: answering, thumbnails: inStore, keeper: keeper,
                                                 statistics: statistics, logger: logger)
        }
        if let onDisk = stores.thumbnailsOnDisk {
            answering = ThumbnailDiskTier(next: answering, thumbnails: onDisk, statistics: statistics, logger: logger)
        }
        front = MemoryTier(next: answering, memory: MemoryCache(costLimit: configuration.memoryCostLimit),
                           statistics: statistics, logger: logger)
    }
}
