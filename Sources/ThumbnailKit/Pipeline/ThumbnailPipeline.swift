import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns image URLs into thumbnails, as cheaply as the caches allow.
///
/// A request is answered by the first tier that has it: the memory cache, the
/// thumbnail disk tier (a small encoded file), the object store a fleet shares
/// (when configured), the original disk tier (decoded again), and finally the
/// data loader. Each step keeps what it made: the original (atomically, only
/// once it downloaded whole and decoded), the encoded thumbnail (on disk and
/// in the object store), the memory-cache entry.
///
/// - Identical requests in flight share one fetch and one decode; a caller
///   that cancels leaves, and the shared work stops when the last one has left.
/// - Sizes of one URL wanted at the same time come from one decode.
/// - Downloads and decodes are each bounded, served by priority then in order
///   of arrival; a waiting request's priority rises when a higher one joins it.
/// - Cancelling the caller's task cancels the HTTP transfer and the decode.
/// - Transient failures are retried (see ``RetryPolicy``); a corrupt image,
///   a 4xx (but 408/429) or a cancelled request never.
///
/// ```swift
/// let pipeline = ThumbnailPipeline(configuration: .init(dataLoader: FileDataLoader(), diskCache: disk))
/// let thumbnail = try await pipeline.thumbnail(for: ThumbnailRequest(url: url, size: .fit(256)))
/// ```
public final class ThumbnailPipeline: Sendable {
    /// The cores this machine has online: the default decode limit.
    public static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// What the pipeline was made with: its loader, stores, budgets and limits. Fixed for its lifetime.
    public let configuration: Configuration
    let tiers: TierChain
    private var logger: Logger { configuration.logger }

    /// The default composition of the tiers, built from `configuration`, with
    /// room for tiers of the app's own:
    ///
    ///     memory → thumbnail disk → object-store thumbnails → [rendering] → sharing ⇒ keeping → decoding
    ///     ⇒ original disk → object-store originals → [fetching] → retrying → download limit → network
    ///
    /// Each tier plays one role; the disk tiers are there when
    /// ``Configuration/diskCache`` is, the object store's when
    /// ``Configuration/objectStore`` is (its originals when
    /// ``Configuration/keepsOriginalsInObjectStore``).
    ///
    /// - Parameters:
    ///   - configuration: the data loader, the stores, the budgets and the limits.
    ///   - rendering: given the tier that makes thumbnails (requests for one
    ///     URL share one decode of its original for every size wanted, and
    ///     the copies made are kept), returns what answers behind the memory,
    ///     thumbnail disk and object-store tiers: that tier wrapped, or a tier
    ///     that replaces it. It receives every request those tiers miss. What
    ///     a replacement answers is kept in memory, not on disk.
    ///   - fetching: given the fetch (retrying, under the download limit,
    ///     through ``Configuration/dataLoader``), returns what brings an
    ///     original the original disk tier does not have: that fetch wrapped,
    ///     or a source that replaces it. What it brings is stored in the
    ///     original disk tier once it has decoded.
    ///
    /// ```swift
    /// /// Answers bundled images from memory, and asks the fetch for the rest.
    /// struct BundledOriginals: OriginalProviding {
    ///     let next: any OriginalProviding
    ///     let bundled: [String: [UInt8]]
    ///
    ///     func original(for request: OriginalRequest) async throws -> Original {
    ///         guard let bytes = bundled[request.url] else { return try await next.original(for: request) }
    ///         return Original(body: .memory(bytes), metadata: DiskCacheMetadata(url: request.url))
    ///     }
    /// }
    ///
    /// let pipeline = ThumbnailPipeline(configuration: .init(diskCache: disk),
    ///                                  fetching: { BundledOriginals(next: $0, bundled: assets) })
    /// ```
    public init(configuration: Configuration = Configuration(),
                rendering: (any ThumbnailProviding) -> any ThumbnailProviding = { $0 },
                fetching: (any OriginalProviding) -> any OriginalProviding = { $0 }) {
        self.configuration = configuration
        tiers = TierChain(configuration, rendering: rendering, fetching: fetching)
    }

    /// What is stored where, for the warmer.
    var stores: Stores { tiers.stores }
    /// The original tiers, for the warmer.
    var originals: any OriginalProviding { tiers.originals }
    /// Decoded thumbnails, by URL and size, within ``Configuration/memoryCostLimit``.
    var memoryCache: MemoryCache<ThumbnailKey, Thumbnail> { tiers.front.memory }

    /// What the pipeline has done so far.
    public var statistics: PipelineStatistics { tiers.statistics.snapshot }

    /// The most decodes that have run at once since the pipeline was made:
    /// never more than ``Configuration/maximumConcurrentDecodes``.
    package var peakConcurrentDecodes: Int { tiers.renderer.decodes.peak }

    /// Originals being brought and decoded now (distinct URLs).
    package var inFlightCount: Int { tiers.sharing.renditions.inFlightCount }

    /// Callers waiting now for the image `request` names to be made (any size, any priority).
    package func waiterCount(for request: ThumbnailRequest) -> Int {
        tiers.sharing.callerCount(for: request.url, policy: request.cachePolicy)
    }

    /// Transfers running or waiting for a download slot now.
    package var waitingDownloads: Int { tiers.downloads.waitingCount }

    /// The thumbnail if the memory cache has it: no suspension, for a row
    /// being configured. A hit counts as a memory hit (a request answered); a
    /// miss counts nothing, since the request that follows a `nil` counts it.
    public func cachedThumbnail(for request: ThumbnailRequest) -> Thumbnail? {
        tiers.front.cachedThumbnail(for: request)
    }

    /// The thumbnail for `request`, from the first tier that has it.
    ///
    /// It is returned as soon as it is made; the copies kept of it (the
    /// original, the encoded thumbnail) are written after. One that cannot be
    /// written (a full disk) is logged, and
    /// ``thumbnails(of:sizes:priority:cachePolicy:progress:)`` reports it.
    /// - Parameters:
    ///   - request: the image, its size, priority and cache policy.
    ///   - progress: called with what the request is doing (bytes
    ///     arriving, a retry waiting, decoding), in order, on any thread.
    /// - Throws: ``ThumbnailError``, whose ``ThumbnailError/kind`` says what failed and whose
    ///   ``ThumbnailError/underlying`` error says how (a ``DataLoadingError``, a
    ///   ``ThumbnailDecodingError``, …); of kind ``ThumbnailError/Kind/cancelled`` when the
    ///   calling task is cancelled, which is not counted as a failure.
    public func thumbnail(for request: ThumbnailRequest,
                          progress: (@Sendable (ThumbnailProgress) -> Void)? = nil) async throws -> Thumbnail {
        do {
            return try await tiers.front.thumbnail(for: request, progress: progress)
        } catch {
            let failure = ThumbnailError(error)
            if failure.kind != .cancelled {
                tiers.statistics.record { $0.failures += 1 }
                // Debug, not warning: the caller has the error, and an app that handles it wants no stderr line.
                logger.debug("failed", metadata: ["key": "\(request.key)", "error": "\(failure)"])
            }
            throw failure
        }
    }

    /// Thumbnails of `url` at every one of `sizes`, from one decode of the
    /// original when any of them has to be made (a warm-up making 128 and
    /// 256 px decodes once). Each size goes through the tiers as
    /// ``thumbnail(for:progress:)`` would. Returns only once the copies made
    /// for them are written, saying whether they are all stored
    /// (``ThumbnailSet/storageFailure``): what a warm-up waits for.
    /// - Throws: as ``thumbnail(for:progress:)``; the first error of any size.
    public func thumbnails(of url: String, sizes: Set<ThumbnailSize>, priority: RequestPriority = .normal,
                           cachePolicy: CachePolicy = .useCache,
                           progress: (@Sendable (ThumbnailProgress) -> Void)? = nil) async throws -> ThumbnailSet {
        // Asked together, so the first decode makes them all.
        let together = SizesAskedTogether(url: url, sizes: sizes)
        return try await SizesAskedTogether.$current.withValue(together) {
            let (thumbnails, kept) = try await tiers.writes.watching(url) {
                try await withThrowingTaskGroup(of: (ThumbnailSize, Thumbnail).self) { group in
                    for size in sizes {
                        let request = ThumbnailRequest(url: url, size: size, priority: priority, cachePolicy: cachePolicy)
                        group.addTask {
                            let thumbnail = try await self.thumbnail(for: request, progress: progress)
                            together.answered(size)
                            return (size, thumbnail)
                        }
                    }
                    return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
                }
            }
            return ThumbnailSet(thumbnails: thumbnails, kept: kept)
        }
    }

    /// Returns once the work that every caller has left (their tasks were
    /// cancelled) has wound down: its transfer closed, its decode stopped, its
    /// original's temporary file removed; and once the copies of work that
    /// finished are written. Callers leave at once; wait for this before
    /// exiting, or before looking at the disk tiers, after cancelling.
    /// Work that other callers still wait for is not waited for.
    public func waitForAbandonedWork() async {
        await tiers.sharing.renditions.waitForAbandonedWork()
        await tiers.writes.waitForAll()
    }
}
