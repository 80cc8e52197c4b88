import Logging

/// The thumbnail disk tier: a small encoded file per URL and size, read back
/// in place of a decode of the original. What the tiers behind it make is
/// stored by the keeping tier, once per decode.
///
/// On revalidation the original is asked first; when it is unchanged (a 304)
/// the stored thumbnail is current and answers, and only one missing is made
/// again, from the stored original.
struct ThumbnailDiskTier: ThumbnailProviding {
    let next: any ThumbnailProviding
    let thumbnails: DiskThumbnails
    let statistics: StatisticsCounter
    let logger: Logger

    func cachedThumbnail(for request: ThumbnailRequest) -> Thumbnail? { nil }

    func thumbnail(for request: ThumbnailRequest,
                   progress: (@Sendable (ThumbnailProgress) -> Void)?) async throws -> Thumbnail {
        switch request.cachePolicy {
        case .useCache:
            if let thumbnail = await stored(request) { return thumbnail }
        case .revalidate:
            do {
                return try await next.thumbnail(for: request, progress: progress)
            } catch is OriginalUnchanged {
                if let thumbnail = await stored(request) { return thumbnail }
                var current = request
                current.cachePolicy = .useCache
                return try await next.thumbnail(for: current, progress: progress)
            }
        case .reload:
            break
        }
        return try await next.thumbnail(for: request, progress: progress)
    }

    private func stored(_ request: ThumbnailRequest) async -> Thumbnail? {
        guard let thumbnail = await thumbnails.read(request.key) else { return nil }
        statistics.record { $0.thumbnailDiskHits += 1 }
        logger.debug("thumbnail from disk", metadata: ["key": "\(request.key)"])
        return thumbnail
    }
}
