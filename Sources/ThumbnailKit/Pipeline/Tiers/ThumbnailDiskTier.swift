import Logging

/// The thumbnail disk tier: a small encoded file per URL and size, read back
/// in place of a decode of the original. What the tiers behind it make is
/// stored by the rendering tier, once per decode.
struct ThumbnailDiskTier: ThumbnailProviding {
    let next: any ThumbnailProviding
    let stored: StoredThumbnails
    let statistics: StatisticsCounter
    let logger: Logger

    func cachedThumbnail(for request: ThumbnailRequest) -> Thumbnail? { nil }

    func thumbnail(for request: ThumbnailRequest,
                   progress: (@Sendable (ThumbnailProgress) -> Void)?) async throws -> Thumbnail {
        if request.cachePolicy == .useCache, let thumbnail = await stored.read(request.key) {
            statistics.record { $0.thumbnailDiskHits += 1 }
            logger.debug("thumbnail from disk", metadata: ["key": "\(request.key)"])
            return thumbnail
        }
        return try await next.thumbnail(for: request, progress: progress)
    }
}
