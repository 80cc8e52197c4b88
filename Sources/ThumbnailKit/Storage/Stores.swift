/// What is stored where: the disk tier's and the object store's namespaces of
/// originals and of thumbnails, under one set of ``CacheKeys``. The pipeline's
/// tiers and ``CacheWarmer`` share this value, so they look in the same places.
struct Stores: Sendable {
    let keys: CacheKeys
    /// Encoded thumbnails on disk; `nil` without a disk tier.
    let thumbnailsOnDisk: DiskThumbnails?
    /// Originals on disk; `nil` without a disk tier.
    let originalsOnDisk: DiskOriginals?
    /// Encoded thumbnails in the object store; `nil` without one.
    let thumbnailsInStore: ObjectStoreThumbnails?
    /// Originals in the object store; `nil` unless it keeps them.
    let originalsInStore: ObjectStoreOriginals?

    init(_ configuration: ThumbnailPipeline.Configuration) {
        let keys = CacheKeys(appliesOrientation: configuration.decoder.appliesOrientation)
        let limits = configuration.decoder.limits
        let logger = configuration.logger
        self.keys = keys
        thumbnailsOnDisk = configuration.diskCache.map { DiskThumbnails(disk: $0, keys: keys, limits: limits, logger: logger) }
        originalsOnDisk = configuration.diskCache.map { DiskOriginals(disk: $0, keys: keys, logger: logger) }
        thumbnailsInStore = configuration.objectStore.map {
            ObjectStoreThumbnails(store: $0, keys: keys, limits: limits, logger: logger)
        }
        originalsInStore = configuration.keepsOriginalsInObjectStore
            ? configuration.objectStore.map { ObjectStoreOriginals(store: $0, keys: keys) } : nil
    }
}

extension Stores {
    /// Which copies of `url` the disk tier holds, by its index: no file is
    /// looked at. Those found count as this process's in ``DiskCache/imageEvictions``.
    /// It may wait for the index's lock, which a change holds while it waits
    /// for the cache's file lock: call it on a blocking-work thread.
    func copiesOnDisk(of url: String, sizes: Set<ThumbnailSize>) -> StoredCopies {
        guard let originalsOnDisk, let thumbnailsOnDisk else { return StoredCopies(hasOriginal: false, thumbnailSizes: []) }
        return StoredCopies(hasOriginal: originalsOnDisk.contains(url),
                            thumbnailSizes: sizes.filter { thumbnailsOnDisk.contains(ThumbnailKey(url: url, size: $0)) })
    }

    /// Which copies of `url` the object store holds, without reading them:
    /// one HEAD per key (the original's only when it keeps originals, else it counts as held).
    /// - Throws: the store's error.
    func copiesInStore(of url: String, sizes: Set<ThumbnailSize>) async throws -> StoredCopies {
        guard let thumbnailsInStore else { return StoredCopies(hasOriginal: false, thumbnailSizes: []) }
        var held = Set<ThumbnailSize>()
        for size in sizes where try await thumbnailsInStore.contains(ThumbnailKey(url: url, size: size)) {
            held.insert(size)
        }
        let hasOriginal = try await originalsInStore?.contains(url) ?? true
        return StoredCopies(hasOriginal: hasOriginal, thumbnailSizes: held)
    }
}

/// What one store holds of one image.
struct StoredCopies: Sendable, Hashable {
    /// The original's bytes are stored.
    var hasOriginal: Bool
    /// The sizes asked about that have an encoded thumbnail stored.
    var thumbnailSizes: Set<ThumbnailSize>
}
