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
    public let pipeline: ThumbnailPipeline
    /// The thumbnail sizes to make of every image.
    public let sizes: Set<ThumbnailSize>
    /// Images worked on at once. Default: the pipeline's downloads plus its decodes, so both stay busy.
    public let maximumInFlight: Int

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

    private func warmOne(_ url: String, revalidate: Bool, tally: Tally) async -> WarmOutcome {
        if pipeline.configuration.objectStore != nil { return await warmIntoObjectStore(url, tally: tally) }
        let before = await storedCopies(of: url)
        if !revalidate, isComplete(before) { return .alreadyCached }
        let made: Made
        // Thumbnails without their original (evicted): the thumbnail tier would answer and the
        // original stay missing, so the image is fetched and made again.
        let policy: CachePolicy = revalidate ? .revalidate : before.hasOriginal ? .useCache : .reload
        switch await make(url, sizes: sizes, policy: policy, tally: tally) {
        case let .made(result):
            made = result
        case let .cancelled(bytes):
            // If the work it left had stored every copy by the time it wound down, the image is
            // done, not left for the next run.
            guard !revalidate, isComplete(await storedCopies(of: url)) else { return .cancelled }
            made = Made(bytes: bytes, storageFailure: nil)
        case let .failed(reason):
            return .failed(reason: reason)
        }
        let after = await storedCopies(of: url)
        tally.wrote(made.bytes > 0 ? after.thumbnailSizes.count : after.thumbnailSizes.subtracting(before.thumbnailSizes).count)
        // Made but not on disk: the next run would have to make it again.
        if let failure = made.storageFailure { return .failed(reason: "not stored: \(failure)") }
        if made.bytes > 0 { return .fetched(bytes: made.bytes) }
        return revalidate && before.hasOriginal ? .notModified : .madeFromStoredOriginal
    }

    /// Warms `url` into the pipeline's object store: the sizes the store lacks
    /// (a HEAD each) are copied from the disk tier when it has them, and made
    /// otherwise; so is the original when the store keeps originals. An image
    /// the store has whole costs no download and no write.
    private func warmIntoObjectStore(_ url: String, tally: Tally) async -> WarmOutcome {
        let missing: Set<ThumbnailSize>
        let copied: Set<ThumbnailSize>
        do {
            missing = try await pipeline.sizesMissingFromObjectStore(of: url, among: sizes)
            let originalMissing = try await pipeline.originalMissingFromObjectStore(of: url)
            if missing.isEmpty, !originalMissing { return .alreadyCached }
            copied = try await pipeline.copyStoredThumbnailsToObjectStore(of: url, sizes: missing)
            tally.wrote(copied.count)
            // Making thumbnails puts their original in too; with none to make, it goes in alone.
            if missing == copied, originalMissing { try await pipeline.putOriginalInObjectStore(of: url) }
        } catch is CancellationError {
            return .cancelled
        } catch {
            return .failed(reason: "object store: \(error)")
        }
        let remaining = missing.subtracting(copied)
        if remaining.isEmpty { return .copiedToObjectStore }
        switch await make(url, sizes: remaining, policy: .useCache, tally: tally) {
        case let .made(made):
            if let failure = made.storageFailure { return .failed(reason: "not stored: \(failure)") }
            tally.wrote(remaining.count)
            return made.bytes > 0 ? .fetched(bytes: made.bytes) : .madeFromStoredOriginal
        case .cancelled:
            return .cancelled
        case let .failed(reason):
            return .failed(reason: reason)
        }
    }

    /// What making an image's thumbnails did.
    private struct Made {
        /// Body bytes downloaded (0 when the original was on disk).
        let bytes: Int
        /// Why a copy made is not stored.
        let storageFailure: (any Error)?
    }

    private enum Making {
        case made(Made)
        /// Cancelled once this many body bytes had arrived.
        case cancelled(bytes: Int)
        case failed(String)
    }

    /// Makes the thumbnails of `url` at `sizes` through the pipeline and waits for their copies to be stored.
    private func make(_ url: String, sizes: Set<ThumbnailSize>, policy: CachePolicy, tally: Tally) async -> Making {
        let received = Mutex(0)
        do {
            let storageFailure = try await pipeline.thumbnails(of: url, sizes: sizes, cachePolicy: policy) { event in
                guard case let .fetching(transfer) = event else { return }
                let added = received.withLock { previous in
                    defer { previous = transfer.receivedBytes }
                    return max(0, transfer.receivedBytes - previous)
                }
                tally.received(added)
            }.storageFailure
            return .made(Made(bytes: received.withLock { $0 }, storageFailure: storageFailure))
        } catch let error where ThumbnailError.isCancellation(error) {
            // The work this leaves winds down first, so nothing of it is half done when the run returns.
            await pipeline.waitForAbandonedWork()
            return .cancelled(bytes: received.withLock { $0 })
        } catch {
            return .failed("\(error)")
        }
    }

    /// What the disk tiers hold of `url`, looked up on a Dispatch thread (it stats files).
    private func storedCopies(of url: String) async -> StoredCopies {
        await BlockingWork.run { [pipeline, sizes] in pipeline.storedCopies(of: url, sizes: sizes) }
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
