import Logging

/// The thumbnail namespace of the disk cache: encoded thumbnails with their
/// original's facts, under ``CacheKeys/thumbnailOnDisk(_:)``.
struct DiskThumbnails: Sendable {
    let disk: DiskCache
    let keys: CacheKeys
    /// Limits for reading stored files back (small, and without EXIF).
    let limits: DecodingLimits
    let logger: Logger

    /// A stored thumbnail's encoded bytes and its original's facts.
    struct Encoded: Sendable {
        let bytes: [UInt8]
        let source: ImageHeader
        let originLastModified: String?
    }

    /// Whether the disk tier's index holds a thumbnail for `key`, without
    /// looking at the disk (see ``DiskCache/indexHoldsEntry(forKey:in:ofImage:)``).
    func contains(_ key: ThumbnailKey) -> Bool {
        disk.indexHoldsEntry(forKey: keys.thumbnailOnDisk(key), in: .thumbnails, ofImage: keys.originalOnDisk(key.url))
    }

    /// The stored thumbnail for `key`, carrying its original's facts; `nil`
    /// when absent, unreadable, or stored without those facts (by an older
    /// version): such an entry is made again rather than answered with the
    /// stored file's own size as the source's.
    func read(_ key: ThumbnailKey) async -> Thumbnail? {
        let decoder = ThumbnailDecoder(size: key.size.storedFile, limits: limits, appliesOrientation: false)
        do {
            return try await BlockingWork.run { [self] () -> Thumbnail? in
                guard let encoded = try encoded(key) else { return nil }
                let stored = try decoder.decode(encoded.bytes)
                var thumbnail = Thumbnail(width: stored.width, height: stored.height, pixels: stored.pixels,
                                          source: encoded.source, report: nil)
                thumbnail.originLastModified = encoded.originLastModified
                return thumbnail
            }
        } catch {
            // A stored thumbnail that no longer decodes is dropped and made again.
            logger.warning("dropping an unreadable stored thumbnail", metadata: ["key": "\(key)", "error": "\(error)"])
            try? disk.removeEntry(forKey: keys.thumbnailOnDisk(key), in: .thumbnails)
            return nil
        }
    }

    /// The stored encoded thumbnail for `key`, as ``read(_:)`` finds it but
    /// not decoded; synchronous, for a blocking-work thread.
    /// - Throws: ``DiskCacheError`` when the file cannot be read.
    func encoded(_ key: ThumbnailKey) throws -> Encoded? {
        try withEncoded(key) { facts, bytes in
            Encoded(bytes: Array(bytes), source: facts.source, originLastModified: facts.originLastModified)
        } ?? nil
    }

    /// Hands `body` the stored encoded thumbnail for `key` in place, in the one
    /// buffer its file is read into, with its facts; `nil` when absent or
    /// stored without its original's facts. Synchronous, for a blocking-work thread.
    /// - Throws: ``DiskCacheError`` when the file cannot be read.
    func withEncoded<Result>(_ key: ThumbnailKey,
                             _ body: (EncodedThumbnailFacts, UnsafeRawBufferPointer) throws -> Result) throws -> Result? {
        try disk.withEntry(forKey: keys.thumbnailOnDisk(key), in: .thumbnails) { metadata, bytes, _ -> Result? in
            guard let source = metadata.source, let format = ImageFormat(sniffing: bytes) else { return nil }
            return try body(EncodedThumbnailFacts(tier: .disk, format: format, source: source,
                                                  originLastModified: metadata.lastModified), bytes)
        } ?? nil
    }

    /// Stores an encoded thumbnail of `key`, made of an original with the `source` facts
    /// that its origin last modified at `originLastModified`, when it said.
    /// - Throws: ``DiskCacheError`` (a full disk, a file size limit, …).
    func write(_ encoded: [UInt8], source: ImageHeader, originLastModified: String?, for key: ThumbnailKey) async throws {
        let diskKey = keys.thumbnailOnDisk(key)
        let metadata = DiskCacheMetadata(url: keys.originalOnDisk(key.url), lastModified: originLastModified, source: source)
        try await BlockingWork.run { [disk] in
            try disk.store(encoded, forKey: diskKey, in: .thumbnails, metadata: metadata)
        }
    }
}
