import Logging

/// The thumbnails a fleet shares in the object store, read after the disk
/// tier and before anything is made. A thumbnail read here is kept on the
/// local disk too, so the next read stays on this machine. Requests for one
/// thumbnail at once share one read. A store that cannot be read, or an object
/// that does not check out, is a miss (logged): the tiers behind make it.
struct ObjectStoreThumbnailTier: ThumbnailProviding {
    let next: any ThumbnailProviding
    let thumbnails: ObjectStoreThumbnails
    let keeper: CopyKeeper
    let reads = Coalescer<ThumbnailKey, ObjectStoreThumbnails.Found?>()
    let statistics: StatisticsCounter
    let logger: Logger

    func cachedThumbnail(for request: ThumbnailRequest) -> Thumbnail? { nil }

    func thumbnail(for request: ThumbnailRequest,
                   progress: (@Sendable (ThumbnailProgress) -> Void)?) async throws -> Thumbnail {
        guard request.cachePolicy == .useCache,
              let found = try await reads.value(for: request.key, priority: request.priority, work: { [thumbnails] _ in
                  await thumbnails.read(request.key)
              })
        else { return try await next.thumbnail(for: request, progress: progress) }
        statistics.record { $0.objectStoreHits += 1 }
        logger.debug("thumbnail from the object store", metadata: ["key": "\(request.key)"])
        keeper.keepOnDisk(found.bytes, source: found.thumbnail.source,
                          originLastModified: found.thumbnail.originLastModified, of: request.key)
        return found.thumbnail
    }
}
