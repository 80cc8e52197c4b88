import Logging

/// The original namespace of the disk cache: downloaded bytes with what their
/// server said, under ``CacheKeys/originalOnDisk(_:)``.
struct DiskOriginals: Sendable {
    let disk: DiskCache
    let keys: CacheKeys
    let logger: Logger

    /// Whether the disk tier's index holds the original of `url`, without
    /// looking at the disk (see ``DiskCache/indexHoldsEntry(forKey:in:ofImage:)``).
    func contains(_ url: String) -> Bool {
        let key = keys.originalOnDisk(url)
        return disk.indexHoldsEntry(forKey: key, in: .originals, ofImage: key)
    }

    /// The stored original of `url`, opened and checked; `nil` when absent or
    /// unreadable (logged: it is fetched again).
    func open(_ url: String) async -> OpenedDiskCacheEntry? {
        let key = keys.originalOnDisk(url)
        do {
            return try await BlockingWork.run { [disk] in try disk.openEntry(forKey: key, in: .originals) }
        } catch {
            logger.warning("could not read a stored original", metadata: ["url": "\(url)", "error": "\(error)"])
            return nil
        }
    }

    /// Stores the original of `url` that a tier of the app's had in memory.
    /// - Throws: ``DiskCacheError``.
    func store(_ bytes: [UInt8], metadata: DiskCacheMetadata, of url: String) async throws {
        let key = keys.originalOnDisk(url)
        try await BlockingWork.run { [disk] in try disk.store(bytes, forKey: key, in: .originals, metadata: metadata) }
    }

    /// A temporary file for a download of the original of `url`, which
    /// becomes the stored original when committed.
    /// - Throws: ``DiskCacheError``.
    func makeWriter(for url: String, metadata: DiskCacheMetadata) throws -> DiskCacheEntryWriter {
        try disk.makeEntryWriter(forKey: keys.originalOnDisk(url), in: .originals, metadata: metadata)
    }
}
