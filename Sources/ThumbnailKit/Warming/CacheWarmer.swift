import Synchronization

/// Fills the disk tiers with the originals and thumbnails of a list of
/// images, so that a list showing them later downloads nothing: the work of
/// `thumbnailer warm`.
///
/// - Streams the work: at most ``maximumInFlight`` images are being worked
///   on at once (their originals are the only large memory), whatever the
///   length of the list, which may be a sequence read as the work goes
///   (``warm(_:count:revalidate:onProgress:)``), never held whole.
/// - An image whose original and every requested thumbnail are on disk is
///   counted as already cached without being read: a second run downloads
///   nothing and writes nothing.
/// - Each image is decoded once for all sizes; downloads, decodes and
///   retries follow the pipeline's configuration.
/// - Cancelling the calling task stops the run: in-flight transfers are
///   cancelled, nothing partial is stored, and the report counts as
///   unfinished what the next run has left to do. It returns only once the
///   cancelled work has wound down (connections closed, temporary files
///   removed), so a process may exit then.
public struct CacheWarmer: Sendable {
    /// Fetches, decodes and stores each image; its disk tiers are what is warmed.
    public let pipeline: ThumbnailPipeline
    /// The thumbnail sizes to make of every image.
    public let sizes: Set<ThumbnailSize>
    /// Images worked on at once. Default: the pipeline's downloads plus its decodes, so both stay busy.
    public let maximumInFlight: Int

    /// A warmer; a precondition failure when `sizes` is empty.
    /// - Parameters:
    ///   - pipeline: Fetches, decodes and stores each image.
    ///   - sizes: The thumbnail sizes to make of every image.
    ///   - maximumInFlight: Images worked on at once, raised to 1 if lower. Default: `nil`, the pipeline's
    ///     ``ThumbnailPipeline/Configuration/maximumConcurrentDownloads`` plus its
    ///     ``ThumbnailPipeline/Configuration/maximumConcurrentDecodes``.
    public init(pipeline: ThumbnailPipeline, sizes: Set<ThumbnailSize>, maximumInFlight: Int? = nil) {
        precondition(!sizes.isEmpty, "warming needs at least one size")
        self.pipeline = pipeline
        self.sizes = sizes
        let configuration = pipeline.configuration
        self.maximumInFlight = max(1, maximumInFlight
            ?? configuration.maximumConcurrentDownloads + configuration.maximumConcurrentDecodes)
    }

    /// Warms every URL of `urls` (duplicates are warmed once).
    /// - Parameters:
    ///   - urls: the images.
    ///   - revalidate: ask the server whether stored originals are current
    ///     (`If-None-Match`/`If-Modified-Since`) and fetch only changed ones.
    ///   - onProgress: called after each image finishes and as bytes arrive, from any thread.
    public func warm(_ urls: [String], revalidate: Bool = false,
                     onProgress: @escaping @Sendable (WarmProgress) -> Void = { _ in }) async -> WarmReport {
        var seen = Set<String>()
        let unique = urls.filter { seen.insert($0).inserted }
        return await warm(unique, count: unique.count, revalidate: revalidate, onProgress: onProgress)
    }

    /// Warms every URL of `urls`, taken from it only as work is started: a
    /// sequence read from disk costs no memory for the images to come.
    /// - Parameters:
    ///   - urls: The images, each once (a URL given twice is warmed twice;
    ///     the second finds it cached, or fails again).
    ///   - count: How many `urls` holds, for the progress's total.
    ///   - revalidate: ask the server whether stored originals are current
    ///     (`If-None-Match`/`If-Modified-Since`) and fetch only changed ones.
    ///   - onProgress: called after each image finishes and as bytes arrive, from any thread.
    public func warm(_ urls: some Sequence<String>, count: Int, revalidate: Bool = false,
                     onProgress: @escaping @Sendable (WarmProgress) -> Void = { _ in }) async -> WarmReport {
        let tally = Tally(total: count, onProgress: onProgress)
        await withTaskGroup(of: Void.self) { group in
            var pending = urls.makeIterator()
            func startNext() -> Bool {
                guard !Task.isCancelled, let url = pending.next() else { return false }
                group.addTask {
                    let outcome = await warmOne(url, revalidate: revalidate, tally: tally)
                    tally.finish(url, with: outcome)
                }
                return true
            }
            for _ in 0..<maximumInFlight where !startNext() { break }
            while await group.next() != nil {
                _ = startNext()
            }
        }
        return tally.report(images: count)
    }

    /// Warms one image: asks the target store once per key what it holds,
    /// copies from the disk tier what only the disk tier has (when the target
    /// is the object store), and makes the rest from one decode.
    private func warmOne(_ url: String, revalidate: Bool, tally: Tally) async -> WarmOutcome {
        let held: StoredCopies
        do {
            held = try await heldByTarget(url)
        } catch is CancellationError {
            return .cancelled
        } catch {
            return .failed(reason: "object store: \(error)", transient: ThumbnailError(error).isTransient)
        }
        if !revalidate, isComplete(held) { return .alreadyCached }
        let (policy, wanted): (CachePolicy, Set<ThumbnailSize>)
        if revalidate {
            (policy, wanted) = (.revalidate, sizes)
        } else if !held.hasOriginal, pipeline.stores.thumbnailsInStore == nil {
            // The disk tier keeps an original only once it decoded: one missing there is fetched
            // and every thumbnail made again of it (the thumbnail tier would answer otherwise).
            (policy, wanted) = (.reload, sizes)
        } else {
            var missing = sizes.subtracting(held.thumbnailSizes)
            do {
                let copied = try await copyFromDiskToStore(url, sizes: missing)
                tally.wrote(copied.count)
                missing.subtract(copied)
                if missing.isEmpty {
                    // Making thumbnails puts their original in too; with none to make, it goes in alone.
                    if !held.hasOriginal { try await putOriginalInStore(url) }
                    return .copiedToObjectStore
                }
            } catch is CancellationError {
                return .cancelled
            } catch {
                return .failed(reason: "object store: \(error)", transient: ThumbnailError(error).isTransient)
            }
            (policy, wanted) = (.useCache, missing)
        }
        switch await make(url, sizes: wanted, policy: policy, tally: tally) {
        case let .made(made):
            tally.wrote(made.written)
            // Made but not stored: the next run would have to make it again.
            if let failure = made.storageFailure {
                return .failed(reason: "not stored: \(failure)", transient: ThumbnailError(failure).isTransient)
            }
            if made.bytes > 0 { return .fetched(bytes: made.bytes) }
            return revalidate && held.hasOriginal ? .notModified : .madeFromStoredOriginal
        case let .cancelled(bytes):
            // If the work it left had stored every copy by the time it wound down, the image is
            // done, not left for the next run.
            guard !revalidate, let now = try? await heldByTarget(url), isComplete(now) else { return .cancelled }
            return bytes > 0 ? .fetched(bytes: bytes) : .madeFromStoredOriginal
        case let .failed(reason, transient):
            return .failed(reason: reason, transient: transient)
        }
    }

    /// What the store the warm-up fills holds of `url`: the object store when
    /// the pipeline has one (the disk tier is then this machine's working
    /// copy), else the disk tier. One look per key: a HEAD for the object
    /// store, the index (built by one `lstat` per entry at opening) for the disk tier.
    private func heldByTarget(_ url: String) async throws -> StoredCopies {
        let stores = pipeline.stores
        if stores.thumbnailsInStore != nil { return try await stores.copiesInStore(of: url, sizes: sizes) }
        // Off the cooperative pool: the index's lock is held by a change waiting for the cache's
        // file lock, which another process may hold for as long as its write takes.
        return await BlockingWork.run { [sizes] in stores.copiesOnDisk(of: url, sizes: sizes) }
    }

    /// Copies the thumbnails of `url` the disk tier holds, for `sizes`, to the
    /// object store as they are (the same bytes a rendering would store: the
    /// encoding is deterministic). Returns the sizes copied; none without an object store.
    /// - Throws: the store's error.
    private func copyFromDiskToStore(_ url: String, sizes: Set<ThumbnailSize>) async throws -> Set<ThumbnailSize> {
        guard let inStore = pipeline.stores.thumbnailsInStore, let onDisk = pipeline.stores.thumbnailsOnDisk else { return [] }
        var copied = Set<ThumbnailSize>()
        for size in sizes {
            let key = ThumbnailKey(url: url, size: size)
            // One that cannot be read is made again instead.
            guard let encoded = try? await BlockingWork.run({ try onDisk.encoded(key) }) else { continue }
            try await inStore.write(encoded.bytes, source: encoded.source,
                                    origin: DiskCacheMetadata(url: url, lastModified: encoded.originLastModified), for: key)
            copied.insert(size)
        }
        return copied
    }

    /// Puts the original of `url` into the object store, for an image whose
    /// thumbnails it has already: from the disk tier when it has it
    /// (streamed), else fetched (and not kept on disk: nothing decoded it).
    /// - Throws: the store's error, or the fetch's.
    private func putOriginalInStore(_ url: String) async throws {
        guard let inStore = pipeline.stores.originalsInStore else { return }
        let original = try await pipeline.originals.original(for: OriginalRequest(
            url: url, cachePolicy: .useCache, maximumBytes: pipeline.configuration.maximumDownloadBytes,
            priority: PriorityFollower(.normal), report: { _ in }))
        try await inStore.write(original.body, metadata: original.metadata, of: url)
    }

    /// What making an image's thumbnails did.
    private struct Made {
        /// Body bytes downloaded (0 when the original was on disk).
        let bytes: Int
        /// How many encoded thumbnails were written.
        let written: Int
        /// Why a copy made is not stored.
        let storageFailure: (any Error)?
    }

    private enum Making {
        case made(Made)
        /// Cancelled once this many body bytes had arrived.
        case cancelled(bytes: Int)
        /// Failed: the reason, and whether a later run may succeed.
        case failed(String, transient: Bool)
    }

    /// Makes the thumbnails of `url` at `sizes` through the pipeline and waits for their copies to be stored.
    private func make(_ url: String, sizes: Set<ThumbnailSize>, policy: CachePolicy, tally: Tally) async -> Making {
        let received = Mutex(0)
        do {
            let set = try await pipeline.thumbnails(of: url, sizes: sizes, cachePolicy: policy) { event in
                guard case let .fetching(transfer) = event else { return }
                let added = received.withLock { previous in
                    defer { previous = transfer.receivedBytes }
                    return max(0, transfer.receivedBytes - previous)
                }
                tally.received(added)
            }
            return .made(Made(bytes: received.withLock { $0 }, written: set.written.count, storageFailure: set.storageFailure))
        } catch let error where ThumbnailError.isCancellation(error) {
            // The work this leaves winds down first, so nothing of it is half done when the run returns.
            await pipeline.waitForAbandonedWork()
            return .cancelled(bytes: received.withLock { $0 })
        } catch {
            return .failed("\(error)", transient: ThumbnailError(error).isTransient)
        }
    }

    /// Whether the original and every wanted thumbnail are stored.
    private func isComplete(_ copies: StoredCopies) -> Bool {
        copies.hasOriginal && copies.thumbnailSizes == sizes
    }
}

/// The running totals of a warm-up, shared by its tasks.
private final class Tally: Sendable {
    private struct State {
        var report = WarmReport()
        var bytesReceived = 0
    }

    private let state = Mutex(State())
    private let total: Int
    private let onProgress: @Sendable (WarmProgress) -> Void

    init(total: Int, onProgress: @escaping @Sendable (WarmProgress) -> Void) {
        self.total = total
        self.onProgress = onProgress
    }

    func received(_ bytes: Int) {
        let current = state.withLock { state in
            state.bytesReceived += bytes
            return snapshot(of: state)
        }
        onProgress(current)
    }

    func wrote(_ thumbnails: Int) {
        state.withLock { $0.report.thumbnailsWritten += thumbnails }
    }

    func finish(_ url: String, with outcome: WarmOutcome) {
        let current = state.withLock { state in
            state.report.record(outcome, for: url)
            return snapshot(of: state)
        }
        onProgress(current)
    }

    func report(images: Int) -> WarmReport {
        state.withLock { state in
            var report = state.report
            report.images = images
            report.unfinished = images - report.finished
            return report
        }
    }

    private func snapshot(of state: State) -> WarmProgress {
        WarmProgress(done: state.report.finished, total: total, bytesReceived: state.bytesReceived,
                     failures: state.report.failed)
    }
}
