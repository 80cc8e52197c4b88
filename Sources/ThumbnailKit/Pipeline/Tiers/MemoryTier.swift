import Logging

/// The first tier: thumbnails in memory, in front of every other tier. A
/// request looks here once, and counts one hit or one miss; what the tiers
/// behind it answer is kept here for the next request.
struct MemoryTier: ThumbnailProviding {
    let next: any ThumbnailProviding
    let memory: MemoryCache<ThumbnailKey, Thumbnail>
    let statistics: StatisticsCounter
    let logger: Logger

    /// A peek: a hit is a request answered, and counts; a miss counts
    /// nothing, so a row that finds nothing here and then requests the
    /// thumbnail is counted once, by the request.
    func cachedThumbnail(for request: ThumbnailRequest) -> Thumbnail? {
        guard request.cachePolicy == .useCache, let hit = memory.peekValue(forKey: request.key) else { return nil }
        statistics.record { $0.memoryHits += 1 }
        return hit
    }

    func thumbnail(for request: ThumbnailRequest,
                   progress: (@Sendable (ThumbnailProgress) -> Void)?) async throws -> Thumbnail {
        if request.cachePolicy == .useCache {
            if let hit = memory.value(forKey: request.key) {
                statistics.record { $0.memoryHits += 1 }
                logger.debug("memory hit", metadata: ["key": "\(request.key)"])
                return hit
            }
            statistics.record { $0.memoryMisses += 1 }
        }
        let thumbnail = try await next.thumbnail(for: request, progress: progress)
        _ = memory.insert(thumbnail, forKey: request.key, cost: thumbnail.byteCount)
        return thumbnail
    }
}
