import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns image URLs into thumbnails, as cheaply as the caches allow.
///
/// A request is answered by the first tier that has it: the memory cache, the
/// thumbnail disk tier (a small encoded file), the original disk tier (decoded
/// again), and finally the data loader. Each step keeps what it made: the
/// original (atomically, only once it downloaded whole and decoded), the
/// encoded thumbnail, the memory-cache entry.
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
    /// What the pipeline fetches with, where it keeps things, and its limits.
    public struct Configuration: Sendable {
        /// Where bytes come from. Default: ``FileDataLoader`` (add HTTP with `ThumbnailHTTP`).
        public var dataLoader: any DataLoading
        /// The disk tiers (originals and encoded thumbnails); `nil` for memory only. Default: `nil`.
        public var diskCache: DiskCache?
        /// The memory cache's budget in bytes of pixels. Default: 64 MiB.
        public var memoryCostLimit: Int
        /// Transfers at once. Default: 6.
        public var maximumConcurrentDownloads: Int
        /// Decodes at once. Default: one per core.
        public var maximumConcurrentDecodes: Int
        /// Of those, decodes that need a whole-image buffer of ``largeDecodeBytes``
        /// or more (progressive JPEGs keep every coefficient; see
        /// ``ImageHeader/wholeImageBufferBytes``) at once. Default: 1, so that
        /// two such buffers are never held together.
        public var maximumConcurrentLargeDecodes: Int
        /// What makes a decode large. Default: 4 MiB (a progressive colour JPEG
        /// of about 0.7 megapixels and up).
        public var largeDecodeBytes: Int
        /// When to try a failed fetch again. Default: ``RetryPolicy/default``.
        public var retryPolicy: RetryPolicy
        /// The largest original accepted, announced or streamed. Default: 50 MB.
        public var maximumDownloadBytes: Int
        /// Limits and orientation for every decode (its size is each request's). Default: ``ThumbnailDecoder/init(size:limits:appliesOrientation:skipsUnneededScans:)``.
        public var decoder: ThumbnailDecoder
        /// How thumbnails are encoded for the disk tier. Default: JPEG quality 85, PNG with alpha.
        public var encoder: ThumbnailEncoder
        /// Where the pipeline says what it does: debug per request, warning per failure.
        public var logger: Logger

        public init(dataLoader: any DataLoading = FileDataLoader(), diskCache: DiskCache? = nil,
                    memoryCostLimit: Int = 64 << 20, maximumConcurrentDownloads: Int = 6,
                    maximumConcurrentDecodes: Int = ThumbnailPipeline.processorCount,
                    maximumConcurrentLargeDecodes: Int = 1, largeDecodeBytes: Int = 4 << 20,
                    retryPolicy: RetryPolicy = .default, maximumDownloadBytes: Int = 50_000_000,
                    decoder: ThumbnailDecoder = ThumbnailDecoder(), encoder: ThumbnailEncoder = ThumbnailEncoder(),
                    logger: Logger = Logger(label: "thumbnailer.pipeline")) {
            self.dataLoader = dataLoader
            self.diskCache = diskCache
            self.memoryCostLimit = memoryCostLimit
            self.maximumConcurrentDownloads = maximumConcurrentDownloads
            self.maximumConcurrentDecodes = maximumConcurrentDecodes
            self.maximumConcurrentLargeDecodes = maximumConcurrentLargeDecodes
            self.largeDecodeBytes = largeDecodeBytes
            self.retryPolicy = retryPolicy
            self.maximumDownloadBytes = maximumDownloadBytes
            self.decoder = decoder
            self.encoder = encoder
            self.logger = logger
        }
    }

    /// The cores this machine has online: the default decode limit.
    public static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    public let configuration: Configuration
    /// Decoded thumbnails, by URL and size, within ``Configuration/memoryCostLimit``.
    public let memoryCache: MemoryCache<ThumbnailKey, Thumbnail>

    /// Shared work is keyed by what it makes and by which stored copies may answer.
    private struct ThumbnailWork: Hashable, Sendable {
        let key: ThumbnailKey
        let policy: CachePolicy
    }

    private struct OriginalWork: Hashable, Sendable {
        let url: String
        let policy: CachePolicy
    }

    private let store: ThumbnailStore
    private let fetcher: OriginalFetcher
    private let renderer: ThumbnailRenderer
    /// A thumbnail, and why what was made for it is not on disk (see ``ThumbnailSet/storageFailure``).
    private typealias Made = (thumbnail: Thumbnail, storageFailure: (any Error)?)

    private let thumbnails = Coalescer<ThumbnailWork, Made>()
    private let renditions = Coalescer<OriginalWork, ThumbnailSet>()
    private let requestedSizes = RequestedSizes()
    private let progress = ProgressRelay<String, ThumbnailProgress>()
    private let counters = StatisticsCounter()
    private let downloads: PriorityLimiter
    private var logger: Logger { configuration.logger }

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        memoryCache = MemoryCache(costLimit: configuration.memoryCostLimit)
        downloads = PriorityLimiter(limit: configuration.maximumConcurrentDownloads)
        store = ThumbnailStore(memory: memoryCache, disk: configuration.diskCache, encoder: configuration.encoder,
                               decoder: configuration.decoder, logger: configuration.logger)
        fetcher = OriginalFetcher(loader: configuration.dataLoader, disk: configuration.diskCache, limiter: downloads,
                                  retryPolicy: configuration.retryPolicy,
                                  maximumBytes: configuration.maximumDownloadBytes, statistics: counters,
                                  progress: progress, logger: configuration.logger)
        renderer = ThumbnailRenderer(decoder: configuration.decoder,
                                     limiter: PriorityLimiter(limit: configuration.maximumConcurrentDecodes),
                                     largeLimiter: PriorityLimiter(limit: configuration.maximumConcurrentLargeDecodes),
                                     largeDecodeBytes: configuration.largeDecodeBytes, statistics: counters)
    }

    /// What the pipeline has done so far.
    public var statistics: PipelineStatistics { counters.snapshot }

    /// The most decodes that have run at once since the pipeline was made:
    /// never more than ``Configuration/maximumConcurrentDecodes``.
    public var peakConcurrentDecodes: Int { renderer.decodes.peak }

    /// Thumbnails being made now (distinct URL and size).
    public var inFlightCount: Int { thumbnails.inFlightCount }

    /// Callers waiting now for the thumbnail `request` names (any priority).
    public func waiterCount(for request: ThumbnailRequest) -> Int {
        thumbnails.callerCount(for: ThumbnailWork(key: request.key, policy: request.cachePolicy))
    }

    /// Transfers running or waiting for a download slot now.
    public var waitingDownloads: Int { downloads.waitingCount }

    /// The thumbnail if the memory cache has it: no suspension, for a row being configured.
    public func cachedThumbnail(for request: ThumbnailRequest) -> Thumbnail? {
        guard request.cachePolicy == .useCache else { return nil }
        return memoryCache.value(forKey: request.key)
    }

    /// The thumbnail for `request`, from the first tier that has it.
    ///
    /// A thumbnail made but not stored on disk (a full disk) is returned all
    /// the same, and kept in memory: the failure is logged, and
    /// ``thumbnails(of:sizes:priority:cachePolicy:progress:)`` reports it.
    /// - Parameter progress: called with what the request is doing (bytes
    ///   arriving, a retry waiting, decoding), in order, on any thread.
    /// - Throws: ``DataLoadingError``, ``ThumbnailDecodingError``, or
    ///   `CancellationError` when the calling task is cancelled.
    public func thumbnail(for request: ThumbnailRequest,
                          progress: (@Sendable (ThumbnailProgress) -> Void)? = nil) async throws -> Thumbnail {
        try await made(for: request, progress: progress).thumbnail
    }

    /// ``thumbnail(for:progress:)``, with its storage failure.
    private func made(for request: ThumbnailRequest,
                      progress: (@Sendable (ThumbnailProgress) -> Void)?) async throws -> Made {
        if let hit = cachedThumbnail(for: request) {
            counters.record { $0.memoryHits += 1 }
            logger.debug("memory hit", metadata: ["key": "\(request.key)"])
            return (hit, nil)
        }
        do {
            return try await self.progress.listening(to: request.url, with: progress) {
                try await thumbnails.value(for: ThumbnailWork(key: request.key, policy: request.cachePolicy),
                                           priority: request.priority) { work in
                    try await self.makeThumbnail(for: request, work: work)
                }
            }
        } catch {
            if !(error is CancellationError) {
                counters.record { $0.failures += 1 }
                logger.warning("failed", metadata: ["key": "\(request.key)", "error": "\(error)"])
            }
            throw error
        }
    }

    /// Thumbnails of `url` at every one of `sizes`, from one decode of the
    /// original when any of them has to be made (a warm-up making 128 and
    /// 256 px decodes once). Each size goes through the tiers as
    /// ``thumbnail(for:progress:)`` would; the result also says whether what
    /// was made is on disk (``ThumbnailSet/storageFailure``).
    /// - Throws: as ``thumbnail(for:progress:)``; the first error of any size.
    public func thumbnails(of url: String, sizes: Set<ThumbnailSize>, priority: RequestPriority = .normal,
                           cachePolicy: CachePolicy = .useCache,
                           progress: (@Sendable (ThumbnailProgress) -> Void)? = nil) async throws -> ThumbnailSet {
        // Counted as wanted before any of them starts, so the first decode makes them all.
        try await requestedSizes.wanting(sizes, of: url) {
            try await withThrowingTaskGroup(of: (ThumbnailSize, Made).self) { group in
                for size in sizes {
                    let request = ThumbnailRequest(url: url, size: size, priority: priority, cachePolicy: cachePolicy)
                    group.addTask { (size, try await self.made(for: request, progress: progress)) }
                }
                return try await group.reduce(into: ThumbnailSet(thumbnails: [:])) { set, made in
                    set.thumbnails[made.0] = made.1.thumbnail
                    set.storageFailure = set.storageFailure ?? made.1.storageFailure
                }
            }
        }
    }

    /// Returns once the work that every caller has left (their tasks were
    /// cancelled) has wound down: its transfer closed, its decode stopped, its
    /// original's temporary file removed. Callers leave at once; wait for this
    /// before exiting, or before looking at the disk tiers, after cancelling.
    /// Work that other callers still wait for is not waited for.
    public func waitForAbandonedWork() async {
        // Thumbnail work that winds down leaves its share of a decode, abandoning that too.
        await thumbnails.waitForAbandonedWork()
        await renditions.waitForAbandonedWork()
    }

    /// Which copies of `url` the disk tiers hold now, without reading them:
    /// whether the original is there, and which of `sizes` have a thumbnail.
    public func storedCopies(of url: String, sizes: Set<ThumbnailSize>) -> StoredCopies {
        guard let disk = configuration.diskCache else { return StoredCopies(hasOriginal: false, thumbnailSizes: []) }
        return StoredCopies(
            hasOriginal: disk.containsEntry(forKey: url, in: .originals),
            thumbnailSizes: sizes.filter { disk.containsEntry(forKey: store.diskKey(ThumbnailKey(url: url, size: $0)), in: .thumbnails) })
    }

    /// The shared work for one URL and size: the disk tier, else a share of a decode of the original.
    private func makeThumbnail(for request: ThumbnailRequest, work: Coalescer<ThumbnailWork, Made>.Work) async throws -> Made {
        let key = request.key
        if request.cachePolicy == .useCache {
            // A decode for another size of this URL may have just made it.
            if let made = memoryCache.value(forKey: key) { return (made, nil) }
            if let stored = await store.readFromDisk(key) {
                counters.record { $0.thumbnailDiskHits += 1 }
                logger.debug("thumbnail from disk", metadata: ["key": "\(key)"])
                return (stored, nil)
            }
        }
        let original = OriginalWork(url: request.url, policy: request.cachePolicy)
        work.onPriorityRaised { [renditions] in renditions.raisePriority(for: original, to: $0) }
        return try await requestedSizes.wanting([request.size], of: request.url) {
            // A decode that read the wanted sizes before this one was counted
            // lacks it; the next decode of this URL starts after the count, so
            // this loop runs at most twice.
            while true {
                let made = try await renditions.value(for: original, priority: work.priority) { work in
                    try await self.render(original, work: work)
                }
                if let thumbnail = made.thumbnails[request.size] { return (thumbnail, made.storageFailure) }
            }
        }
    }

    /// The shared work for one URL: fetch (or read) the original, decode it
    /// once for every size wanted, keep the results.
    private func render(_ work: OriginalWork,
                        work shared: Coalescer<OriginalWork, ThumbnailSet>.Work) async throws -> ThumbnailSet {
        let priority = PriorityFollower(shared.priority)
        shared.onPriorityRaised { priority.raise(to: $0) }
        let original = try await fetcher.original(of: work.url, policy: work.policy, priority: priority)
        if !original.isNew, work.policy == .revalidate, let stored = await storedThumbnails(of: work.url) {
            return ThumbnailSet(thumbnails: stored)
        }
        progress.emit(.decoding, for: work.url)
        let made = try await renderer.render(original.body, wantedSizes: { [requestedSizes] in requestedSizes.sizes(of: work.url) },
                                             priority: priority)
        logger.debug("decoded", metadata: ["url": "\(work.url)", "sizes": "\(made.keys.map(\.description))"])
        // What could not be stored is still returned: the thumbnails are good.
        var storageFailure: (any Error)?
        do {
            try await fetcher.store(original)
        } catch {
            storageFailure = error
        }
        for (size, thumbnail) in made {
            do {
                try await store.keep(thumbnail, for: ThumbnailKey(url: work.url, size: size))
            } catch {
                storageFailure = storageFailure ?? error
            }
        }
        if let storageFailure {
            logger.warning("not stored on disk", metadata: ["url": "\(work.url)", "error": "\(storageFailure)"])
        }
        return ThumbnailSet(thumbnails: made, storageFailure: storageFailure)
    }

    /// After a 304: every wanted size from the thumbnail disk tier, or `nil` if one is missing.
    private func storedThumbnails(of url: String) async -> [ThumbnailSize: Thumbnail]? {
        var found: [ThumbnailSize: Thumbnail] = [:]
        for size in requestedSizes.sizes(of: url) {
            guard let thumbnail = await store.readFromDisk(ThumbnailKey(url: url, size: size)) else { return nil }
            found[size] = thumbnail
        }
        return found.isEmpty ? nil : found
    }
}
