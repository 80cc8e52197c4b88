import Logging

/// Where finished thumbnails are kept: the memory cache and, when there is a
/// disk cache, encoded in its thumbnail namespace.
struct ThumbnailStore: Sendable {
    let memory: MemoryCache<ThumbnailKey, Thumbnail>
    let disk: DiskCache?
    let encoder: ThumbnailEncoder
    /// Decodes the stored, already small files (limits and orientation as configured; no EXIF in them).
    let decoder: ThumbnailDecoder
    let logger: Logger

    /// The disk key of a thumbnail. Orientation is part of it: a thumbnail
    /// made without applying EXIF orientation is a different picture.
    func diskKey(_ key: ThumbnailKey) -> String {
        "\(key.url)#\(key.size)" + (decoder.appliesOrientation ? "" : "#unoriented")
    }

    /// The thumbnail from the disk tier, now also in memory; `nil` when absent or unreadable.
    func readFromDisk(_ key: ThumbnailKey) async -> Thumbnail? {
        guard let disk else { return nil }
        let diskKey = diskKey(key)
        let decoder = ThumbnailDecoder(size: key.size, limits: decoder.limits, appliesOrientation: false)
        do {
            let thumbnail = try await BlockingWork.run { () -> Thumbnail? in
                guard let entry = try disk.entry(forKey: diskKey, in: .thumbnails) else { return nil }
                return try decoder.decode(entry.bytes)
            }
            if let thumbnail { _ = memory.insert(thumbnail, forKey: key, cost: thumbnail.byteCount) }
            return thumbnail
        } catch {
            // A stored thumbnail that no longer decodes is dropped and made again.
            logger.warning("dropping an unreadable stored thumbnail", metadata: ["key": "\(key)", "error": "\(error)"])
            try? disk.removeEntry(forKey: diskKey, in: .thumbnails)
            return nil
        }
    }

    /// Keeps `thumbnail` in memory and, encoded, on disk.
    /// - Throws: ``DiskCacheError`` (a full disk, a file size limit, …) or
    ///   ``ThumbnailEncodingError`` when it could not be stored on disk; it is
    ///   in memory all the same.
    func keep(_ thumbnail: Thumbnail, for key: ThumbnailKey) async throws {
        _ = memory.insert(thumbnail, forKey: key, cost: thumbnail.byteCount)
        guard let disk else { return }
        let diskKey = diskKey(key)
        let encoder = encoder
        try await BlockingWork.run {
            try disk.store(encoder.encode(thumbnail), forKey: diskKey, in: .thumbnails,
                           metadata: DiskCacheMetadata(url: key.url))
        }
    }
}
