import Logging

/// The tier that makes thumbnails: reads them from the object store a fleet
/// shares when it has every size wanted, else brings the original from the
/// original tiers and decodes it once for every size of it wanted at the time.
///
/// Everyone asking for one URL (any size) shares that work. The copies it
/// made (the original, an encoded thumbnail per size) are kept after the
/// callers have their thumbnails, as a write that ``StoredCopyWrites`` tracks.
struct RenderingTier: ThumbnailProviding {
    /// Shared work is keyed by the original and by which stored copies may answer.
    struct Work: Hashable, Sendable {
        let url: String
        let policy: CachePolicy
    }

    let originals: any OriginalProviding
    let renderer: ThumbnailRenderer
    let stored: StoredThumbnails?
    /// The object store's thumbnails, when the pipeline has one.
    let objectStore: SharedThumbnails?
    /// The object store's originals, when the pipeline keeps them there.
    let objectStoreOriginals: SharedOriginals?
    let encoder: ThumbnailEncoder
    let statistics: StatisticsCounter
    let writes: StoredCopyWrites
    let renditions: Coalescer<Work, [ThumbnailSize: Thumbnail]>
    let requestedSizes: RequestedSizes
    let progress: ProgressRelay<String, ThumbnailProgress>
    let maximumDownloadBytes: Int
    let logger: Logger

    func cachedThumbnail(for request: ThumbnailRequest) -> Thumbnail? { nil }

    func thumbnail(for request: ThumbnailRequest,
                   progress _: (@Sendable (ThumbnailProgress) -> Void)?) async throws -> Thumbnail {
        let work = Work(url: request.url, policy: request.cachePolicy)
        return try await requestedSizes.wanting([request.size], of: request.url) {
            // A decode that read the wanted sizes before this one was counted
            // lacks it; the next decode of this URL starts after the count, so
            // this loop runs at most twice.
            while true {
                let made = try await renditions.value(for: work, priority: request.priority) { shared in
                    try await render(work, shared: shared)
                }
                if let thumbnail = made[request.size] { return thumbnail }
            }
        }
    }

    /// The shared work for one URL: read every size wanted from the object
    /// store, or bring the original and decode it once for every size wanted;
    /// then start keeping the copies. One lookup per URL, however many sizes
    /// are asked for at once, so sizes never race each other into two decodes.
    private func render(_ work: Work, shared: Coalescer<Work, [ThumbnailSize: Thumbnail]>.Work)
        async throws -> [ThumbnailSize: Thumbnail] {
        if work.policy == .useCache, let stored = await fromObjectStore(work.url) { return stored }
        let priority = PriorityFollower(shared.priority)
        shared.onPriorityRaised { priority.raise(to: $0) }
        let original = try await originals.original(for: OriginalRequest(
            url: work.url, cachePolicy: work.policy, maximumBytes: maximumDownloadBytes, priority: priority,
            report: { [progress] in progress.emit($0, for: work.url) }))
        if !original.isNew, work.policy == .revalidate, let stored = await storedThumbnails(of: work.url) {
            return stored
        }
        progress.emit(.decoding, for: work.url)
        let made = try await renderer.render(original.body, wantedSizes: { [requestedSizes] in requestedSizes.sizes(of: work.url) },
                                             priority: priority)
        logger.debug("decoded", metadata: ["url": "\(work.url)", "sizes": "\(made.keys.map(\.description))"])
        writes.start(for: work.url) { await keep(original, made, of: work.url) }
        return made
    }

    /// Stores the original (in the object store too, when it keeps originals), and each thumbnail
    /// made of it, encoded once, on disk and in the object store.
    /// - Returns: why a copy is not stored (the last that failed is logged too), or `nil`.
    private func keep(_ original: Original, _ made: [ThumbnailSize: Thumbnail], of url: String) async -> (any Error)? {
        var failure: (any Error)?
        if let objectStoreOriginals, !original.isFromObjectStore {
            // Before the disk tier commits it: a download's temporary file is still open to read.
            do {
                let stored = original.isNew ? false : try await objectStoreOriginals.contains(url)
                if !stored {
                    try await objectStoreOriginals.write(original.body, metadata: original.metadata, of: url)
                }
            } catch {
                failure = error
            }
        }
        do {
            try await original.keep?()
        } catch {
            failure = failure ?? error
        }
        if stored != nil || objectStore != nil {
            for (size, thumbnail) in made {
                let key = ThumbnailKey(url: url, size: size)
                let encoded: [UInt8]
                do {
                    encoded = try await BlockingWork.run { [encoder] in try encoder.encode(thumbnail) }
                } catch {
                    failure = failure ?? error
                    continue
                }
                do {
                    try await stored?.write(encoded, source: thumbnail.source, for: key)
                } catch {
                    failure = failure ?? error
                }
                do {
                    try await objectStore?.write(encoded, source: thumbnail.source, origin: original.metadata, for: key)
                } catch {
                    failure = failure ?? error
                }
            }
        }
        if let failure {
            logger.warning("not stored", metadata: ["url": "\(url)", "error": "\(failure)"])
        }
        return failure
    }

    /// Every wanted size from the object store, or `nil` if one is missing
    /// (then they are all made). What it read is kept on the local disk too,
    /// so the next read stays on this machine.
    private func fromObjectStore(_ url: String) async -> [ThumbnailSize: Thumbnail]? {
        guard let objectStore else { return nil }
        var found: [ThumbnailSize: SharedThumbnails.Found] = [:]
        for size in requestedSizes.sizes(of: url) {
            guard let read = await objectStore.read(ThumbnailKey(url: url, size: size)) else { return nil }
            found[size] = read
        }
        guard !found.isEmpty else { return nil }
        statistics.record { $0.objectStoreHits += found.count }
        logger.debug("from the object store", metadata: ["url": "\(url)", "sizes": "\(found.keys.map(\.description))"])
        if let stored {
            writes.start(for: url) { [found, logger] in
                var failure: (any Error)?
                for (size, read) in found {
                    do {
                        try await stored.write(read.bytes, source: read.thumbnail.source, for: ThumbnailKey(url: url, size: size))
                    } catch {
                        failure = failure ?? error
                    }
                }
                if let failure { logger.warning("not stored on disk", metadata: ["url": "\(url)", "error": "\(failure)"]) }
                return failure
            }
        }
        return found.mapValues(\.thumbnail)
    }

    /// After a 304: every wanted size from the thumbnail disk tier, or `nil` if one is missing.
    private func storedThumbnails(of url: String) async -> [ThumbnailSize: Thumbnail]? {
        guard let stored else { return nil }
        var found: [ThumbnailSize: Thumbnail] = [:]
        for size in requestedSizes.sizes(of: url) {
            guard let thumbnail = await stored.read(ThumbnailKey(url: url, size: size)) else { return nil }
            found[size] = thumbnail
        }
        return found.isEmpty ? nil : found
    }
}
