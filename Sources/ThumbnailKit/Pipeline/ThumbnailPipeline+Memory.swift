extension ThumbnailPipeline {
    /// The memory tier now: hits and misses (one per request), evictions,
    /// and the bytes it holds against ``Configuration/memoryCostLimit``.
    public var memoryStatistics: MemoryCache<ThumbnailKey, Thumbnail>.Statistics { memoryCache.statistics }

    /// Drops `request`'s thumbnail from memory (a list releasing rows far from
    /// view); the disk tiers keep their copies.
    public func removeFromMemory(_ request: ThumbnailRequest) {
        _ = memoryCache.removeValue(forKey: request.key)
    }

    /// Empties the memory tier (under memory pressure, say); the disk tiers keep their copies.
    public func removeAllFromMemory() {
        memoryCache.removeAll()
    }
}
