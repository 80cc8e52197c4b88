import Logging

/// The thumbnail namespace of the disk cache: encoded thumbnails with their
/// original's facts, under keys built here and nowhere else.
struct StoredThumbnails: Sendable {
    let disk: DiskCache
    /// Limits for reading stored files back (small, and without EXIF).
    let limits: DecodingLimits
    /// Whether thumbnails are made with EXIF orientation applied.
    let appliesOrientation: Bool
    let logger: Logger

    /// What the stored thumbnails were drawn by, raised whenever the same original comes to make a
    /// different picture, so that thumbnails an earlier version stored are made again from their
    /// originals instead of being served. 2: colour profiles converted to sRGB, and JPEGs damaged
    /// at their source drawn. 3: each size decoded at its own size, never scaled down from another
    /// size's decode, so its bytes no longer depend on the sizes asked for beside it. Earlier
    /// thumbnails stay on disk until the byte limit evicts them.
    static let renderingVersion = 3

    /// The disk key of a thumbnail. Orientation is part of it: a thumbnail
    /// made without applying EXIF orientation is a different picture.
    func diskKey(_ key: ThumbnailKey) -> String {
        Self.diskKey(key, appliesOrientation: appliesOrientation)
    }

    /// The disk key of a thumbnail made with or without EXIF orientation applied.
    static func diskKey(_ key: ThumbnailKey, appliesOrientation: Bool) -> String {
        "\(key.url)#\(key.size)#r\(renderingVersion)" + (appliesOrientation ? "" : "#unoriented")
    }

    /// Whether a thumbnail for `key` is stored, without reading it (one
    /// found is followed in ``DiskCache/imageEvictions``).
    func contains(_ key: ThumbnailKey) -> Bool {
        disk.containsEntry(forKey: diskKey(key), in: .thumbnails, ofImage: key.url)
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

    /// Stores an encoded thumbnail of `key`, made of an original with the `source` facts.
    /// - Throws: ``DiskCacheError`` (a full disk, a file size limit, …).
    func write(_ encoded: [UInt8], source: ImageHeader, for key: ThumbnailKey) async throws {
        let diskKey = diskKey(key)
        try await BlockingWork.run { [disk] in
            try disk.store(encoded, forKey: diskKey, in: .thumbnails, metadata: DiskCacheMetadata(url: key.url, source: source))
        }
    }
}
