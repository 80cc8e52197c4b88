import Logging

/// The thumbnail namespace of the disk cache: encoded thumbnails with their
/// original's facts, under keys built here and nowhere else.
struct StoredThumbnails: Sendable {
    let disk: DiskCache
    let encoder: ThumbnailEncoder
    /// Limits for reading stored files back (small, and without EXIF).
    let limits: DecodingLimits
    /// Whether thumbnails are made with EXIF orientation applied.
    let appliesOrientation: Bool
    let logger: Logger

    /// The disk key of a thumbnail. Orientation is part of it: a thumbnail
    /// made without applying EXIF orientation is a different picture.
    func diskKey(_ key: ThumbnailKey) -> String {
        "\(key.url)#\(key.size)" + (appliesOrientation ? "" : "#unoriented")
    }

    /// Whether a thumbnail for `key` is stored, without reading it.
    func contains(_ key: ThumbnailKey) -> Bool {
        disk.containsEntry(forKey: diskKey(key), in: .thumbnails)
    }

    /// The stored thumbnail for `key`, carrying its original's facts; `nil`
    /// when absent, unreadable, or stored without those facts (by an older
    /// version): such an entry is made again rather than answered with the
    /// stored file's own size as the source's.
    func read(_ key: ThumbnailKey) async -> Thumbnail? {
        let diskKey = diskKey(key)
        let decoder = ThumbnailDecoder(size: key.size, limits: limits, appliesOrientation: false)
        do {
            return try await BlockingWork.run { [disk] () -> Thumbnail? in
                guard let entry = try disk.entry(forKey: diskKey, in: .thumbnails),
                      let source = entry.metadata.source
                else { return nil }
                let stored = try decoder.decode(entry.bytes)
                return Thumbnail(width: stored.width, height: stored.height, pixels: stored.pixels,
                                 source: source, report: nil)
            }
        } catch {
            // A stored thumbnail that no longer decodes is dropped and made again.
            logger.warning("dropping an unreadable stored thumbnail", metadata: ["key": "\(key)", "error": "\(error)"])
            try? disk.removeEntry(forKey: diskKey, in: .thumbnails)
            return nil
        }
    }

    /// Stores `thumbnail`, encoded, with its original's facts.
    /// - Throws: ``DiskCacheError`` (a full disk, a file size limit, …) or ``ThumbnailEncodingError``.
    func write(_ thumbnail: Thumbnail, for key: ThumbnailKey) async throws {
        let diskKey = diskKey(key)
        try await BlockingWork.run { [disk, encoder] in
            try disk.store(encoder.encode(thumbnail), forKey: diskKey, in: .thumbnails,
                           metadata: DiskCacheMetadata(url: key.url, source: thumbnail.source))
        }
    }
}
