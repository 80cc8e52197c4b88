import Logging

/// Writes the copies a rendition or a read leaves behind: the original (on
/// disk, and in the object store when it keeps originals) and each thumbnail,
/// encoded once, on disk and in the object store. Each write runs after the
/// callers have their thumbnails, in a task that ``StoredCopyWrites`` tracks,
/// so a warm-up can wait for it and learn what it wrote.
struct CopyKeeper: Sendable {
    let stores: Stores
    let encoder: ThumbnailEncoder
    let writes: StoredCopyWrites
    /// Each thumbnail's encoding, started as the rendition is handed over, for a server to share.
    let encodings = KeptEncodings()
    let logger: Logger

    /// Starts keeping the original of `url` and the thumbnails made of it;
    /// each thumbnail's encoding starts at once (see ``KeptEncodings``).
    func keep(_ rendition: Rendition, of url: String) {
        var started: [ThumbnailSize: (id: UInt64, encoding: KeptEncodings.Encoding)] = [:]
        if stores.thumbnailsOnDisk != nil || stores.thumbnailsInStore != nil {
            for (size, thumbnail) in rendition.thumbnails {
                started[size] = encodings.start(thumbnail, of: ThumbnailKey(url: url, size: size), with: encoder)
            }
        }
        writes.start(for: url) { [encodings, started] in
            let kept = await write(rendition, of: url, encodings: started.mapValues(\.encoding))
            encodings.written(Dictionary(uniqueKeysWithValues: started.map { (ThumbnailKey(url: url, size: $0.key), $0.value.id) }))
            return kept
        }
    }

    /// Starts keeping on disk a thumbnail read from the object store: its
    /// `bytes`, made of an original with the `source` facts.
    func keepOnDisk(_ bytes: [UInt8], source: ImageHeader, originLastModified: String?, of key: ThumbnailKey) {
        guard let disk = stores.thumbnailsOnDisk else { return }
        writes.start(for: key.url) { [logger] in
            var kept = KeptCopies()
            do {
                try await disk.write(bytes, source: source, originLastModified: originLastModified, for: key)
                kept.thumbnailsOnDisk.insert(key.size)
            } catch {
                kept.failure = error
                logger.warning("not stored on disk", metadata: ["key": "\(key)", "error": "\(error)"])
            }
            return kept
        }
    }

    private func write(_ rendition: Rendition, of url: String, encodings: [ThumbnailSize: KeptEncodings.Encoding]) async -> KeptCopies {
        var kept = KeptCopies()
        let original = rendition.original
        if let inStore = stores.originalsInStore, !original.isFromObjectStore {
            // Before the disk tier commits it: a download's temporary file is still open to read.
            await kept.record {
                if original.isNew ? false : try await inStore.contains(url) { return }
                try await inStore.write(original.body, metadata: original.metadata, of: url)
            }
        }
        await kept.record { try await original.keep?() }
        for (size, thumbnail) in rendition.thumbnails {
            guard let encoding = encodings[size] else { continue }
            await write(thumbnail, encoded: encoding, as: ThumbnailKey(url: url, size: size), origin: original.metadata,
                        into: &kept)
        }
        if let failure = kept.failure {
            logger.warning("not stored", metadata: ["url": "\(url)", "error": "\(failure)"])
        }
        return kept
    }

    private func write(_ thumbnail: Thumbnail, encoded encoding: KeptEncodings.Encoding, as key: ThumbnailKey,
                       origin: DiskCacheMetadata, into kept: inout KeptCopies) async {
        let encoded: [UInt8]
        do {
            encoded = try await encoding.value
        } catch {
            kept.failure = kept.failure ?? error
            return
        }
        if let disk = stores.thumbnailsOnDisk,
           await kept.record({
               try await disk.write(encoded, source: thumbnail.source, originLastModified: origin.lastModified, for: key)
           }) {
            kept.thumbnailsOnDisk.insert(key.size)
        }
        if let store = stores.thumbnailsInStore,
           await kept.record({ try await store.write(encoded, source: thumbnail.source, origin: origin, for: key) }) {
            kept.thumbnailsInStore.insert(key.size)
        }
    }
}

/// What one write of stored copies wrote, and why something is not stored.
struct KeptCopies: Sendable {
    var thumbnailsOnDisk: Set<ThumbnailSize> = []
    var thumbnailsInStore: Set<ThumbnailSize> = []
    /// The first failure, or `nil` when every copy is stored.
    var failure: (any Error)?

    /// Adds what another write wrote.
    mutating func add(_ other: KeptCopies) {
        thumbnailsOnDisk.formUnion(other.thumbnailsOnDisk)
        thumbnailsInStore.formUnion(other.thumbnailsInStore)
        failure = failure ?? other.failure
    }

    /// Runs `write`, keeping its error as the failure unless one came first.
    /// - Returns: whether it succeeded.
    @discardableResult
    mutating func record(_ write: () async throws -> Void) async -> Bool {
        do {
            try await write()
            return true
        } catch {
            failure = failure ?? error
            return false
        }
    }
}
