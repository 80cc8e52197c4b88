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
    /// What the pipeline fetches with, where it keeps things, and its limits.
    public struct Configuration: Sendable {
        /// Where bytes come from. Default: ``FileDataLoader`` (add HTTP with `ThumbnailHTTP`).
        public var dataLoader: any DataLoading
        /// The disk tiers (originals and encoded thumbnails); `nil` for memory only. Default: `nil`.
        public var diskCache: DiskCache?
        /// A store of encoded thumbnails that many machines share (an S3 bucket:
        /// `S3ObjectStore` in ThumbnailHTTP), read after the disk tiers' thumbnails
        /// and before anything is fetched, and given every thumbnail made. `nil`: none. Default: `nil`.
        public var objectStore: (any ObjectStore)?
        /// Whether originals go into the object store too (`originals/…`, streamed from the
        /// disk tier), and are read from it before their origin is asked: a fleet that later
        /// wants another size then never asks the origin again. Default: `false`.
        public var keepsOriginalsInObjectStore: Bool
        /// The memory cache's budget in bytes of pixels. Default: 64 MiB.
        public var memoryCostLimit: Int
        /// Transfers at once. Default: 6.
        public var maximumConcurrentDownloads: Int
        /// Decodes at once. Default: one per core.
        public var maximumConcurrentDecodes: Int
        /// Of those, decodes that need a whole-image buffer of ``largeDecodeBytes``
        /// or more (progressive JPEGs above 1/8, where libjpeg keeps every
        /// coefficient; see ``ThumbnailDecoder/wholeImageBufferBytes(for:)``) at
        /// once. Default: 1, so that two such buffers are never held together.
        public var maximumConcurrentLargeDecodes: Int
        /// What makes a decode large. Default: 4 MiB (a progressive colour JPEG
        /// of about 0.7 megapixels and up).
        public var largeDecodeBytes: Int
        /// When to try a failed fetch again. Default: ``RetryPolicy/default``.
        public var retryPolicy: RetryPolicy
        /// The largest original accepted, announced or streamed. Default: 50 MB.
        public var maximumDownloadBytes: Int
        /// Limits and orientation for every decode (its size is each request's). Default: ``ThumbnailDecoder/init(size:limits:appliesOrientation:progressivePath:convertsToSRGB:)``.
        public var decoder: ThumbnailDecoder
        /// How thumbnails are encoded for the disk tier. Default: JPEG quality 85, PNG with alpha.
        public var encoder: ThumbnailEncoder
        /// Where the pipeline says what it does: debug per request and per failure it throws (the
        /// caller has the error); warning for what no caller hears of (a copy not stored, an
        /// unreadable stored file dropped) and per retry.
        public var logger: Logger

        public init(dataLoader: any DataLoading = FileDataLoader(), diskCache: DiskCache? = nil,
                    objectStore: (any ObjectStore)? = nil, keepsOriginalsInObjectStore: Bool = false, memoryCostLimit: Int = 64 << 20, maximumConcurrentDownloads: Int = 6,
                    maximumConcurrentDecodes: Int = ThumbnailPipeline.processorCount,
                    maximumConcurrentLargeDecodes: Int = 1, largeDecodeBytes: Int = 4 << 20,
                    retryPolicy: RetryPolicy = .default, maximumDownloadBytes: Int = 50_000_000,
                    decoder: ThumbnailDecoder = ThumbnailDecoder(), encoder: ThumbnailEncoder = ThumbnailEncoder(),
                    logger: Logger = Logger(label: "thumbnailer.pipeline")) {
            self.dataLoader = dataLoader
            self.diskCache = diskCache
            self.objectStore = objectStore
            self.keepsOriginalsInObjectStore = keepsOriginalsInObjectStore
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
    let memoryCache: MemoryCache<ThumbnailKey, Thumbnail>

    private let tiers: MemoryTier
    private let stored: StoredThumbnails?
    private let shared: SharedThumbnails?
    private let sharedOriginals: SharedOriginals?
    /// The original tiers: disk, the object store's originals, the fetch.
    private let originals: any OriginalProviding
    private let renderer: ThumbnailRenderer
    private let renditions = Coalescer<RenderingTier.Work, [ThumbnailSize: Thumbnail]>()
    private let writes = StoredCopyWrites()
    private let requestedSizes = RequestedSizes()
    private let progress = ProgressRelay<String, ThumbnailProgress>()
    private let counters = StatisticsCounter()
    private let downloads: PriorityLimiter
    private var logger: Logger { configuration.logger }

    /// The default composition of the tiers, built from `configuration`, with
    /// room for tiers of the app's own:
    ///
    ///     memory → thumbnail disk → [rendering: object store, or original disk → (object store's originals) → [retrying → download limit → network]]
    ///
    /// - Parameters:
    ///   - rendering: given the rendering tier (every size wanted from the
    ///     object store, or a decode of the original for them all), returns what answers behind the memory and
    ///     thumbnail disk tiers: that tier wrapped, or a tier that replaces it.
    ///     What it answers is kept in memory, not on disk.
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
        let logger = configuration.logger
        memoryCache = MemoryCache(costLimit: configuration.memoryCostLimit)
        downloads = PriorityLimiter(limit: configuration.maximumConcurrentDownloads)
        stored = configuration.diskCache.map {
            StoredThumbnails(disk: $0, limits: configuration.decoder.limits,
                             appliesOrientation: configuration.decoder.appliesOrientation, logger: logger)
        }
        shared = configuration.objectStore.map {
            SharedThumbnails(store: $0, limits: configuration.decoder.limits,
                             appliesOrientation: configuration.decoder.appliesOrientation, logger: logger)
        }
        sharedOriginals = configuration.keepsOriginalsInObjectStore
            ? configuration.objectStore.map { SharedOriginals(store: $0, logger: logger) } : nil
        renderer = ThumbnailRenderer(decoder: configuration.decoder,
                                     limiter: PriorityLimiter(limit: configuration.maximumConcurrentDecodes),
                                     largeLimiter: PriorityLimiter(limit: configuration.maximumConcurrentLargeDecodes),
                                     largeDecodeBytes: configuration.largeDecodeBytes, statistics: counters)

        let network = NetworkTier(loader: configuration.dataLoader, statistics: counters, logger: logger)
        let fetch = fetching(RetryingTier(next: DownloadLimitingTier(next: network, limiter: downloads),
                                          policy: configuration.retryPolicy, statistics: counters, logger: logger))
        var originals = fetch
        if let sharedOriginals {
            originals = ObjectStoreOriginalTier(next: originals, originals: sharedOriginals, statistics: counters, logger: logger)
        }
        if let disk = configuration.diskCache {
            originals = OriginalDiskTier(next: originals, disk: disk, statistics: counters, logger: logger)
        }
        self.originals = originals
        let made = rendering(RenderingTier(originals: originals, renderer: renderer, stored: stored, objectStore: shared,
                                           objectStoreOriginals: sharedOriginals,
                                           encoder: configuration.encoder, statistics: counters, writes: writes,
                                           renditions: renditions, requestedSizes: requestedSizes, progress: progress,
                                           maximumDownloadBytes: configuration.maximumDownloadBytes, logger: logger))
        var answering = made
        if let stored {
            answering = ThumbnailDiskTier(next: made, stored: stored, statistics: counters, logger: logger)
        }
        tiers = MemoryTier(next: answering, memory: memoryCache, statistics: counters, logger: logger)
    }

    /// What the pipeline has done so far.
    public var statistics: PipelineStatistics { counters.snapshot }

    /// The most decodes that have run at once since the pipeline was made:
    /// never more than ``Configuration/maximumConcurrentDecodes``.
    public var peakConcurrentDecodes: Int { renderer.decodes.peak }

    /// Originals being brought and decoded now (distinct URLs).
    public var inFlightCount: Int { renditions.inFlightCount }

    /// Callers waiting now for the image `request` names to be made (any size, any priority).
    public func waiterCount(for request: ThumbnailRequest) -> Int {
        renditions.callerCount(for: RenderingTier.Work(url: request.url, policy: request.cachePolicy))
    }

    /// Transfers running or waiting for a download slot now.
    public var waitingDownloads: Int { downloads.waitingCount }

    /// The thumbnail if the memory cache has it: no suspension, for a row
    /// being configured. A hit counts as a memory hit (a request answered); a
    /// miss counts nothing, since the request that follows a `nil` counts it.
    public func cachedThumbnail(for request: ThumbnailRequest) -> Thumbnail? {
        tiers.cachedThumbnail(for: request)
    }

    /// The thumbnail for `request`, from the first tier that has it.
    ///
    /// It is returned as soon as it is made; the copies kept of it (the
    /// original, the encoded thumbnail) are written after. One that cannot be
    /// written (a full disk) is logged, and
    /// ``thumbnails(of:sizes:priority:cachePolicy:progress:)`` reports it.
    /// - Parameter progress: called with what the request is doing (bytes
    ///   arriving, a retry waiting, decoding), in order, on any thread.
    /// - Throws: ``ThumbnailError``, whose ``ThumbnailError/kind`` says what failed and whose
    ///   ``ThumbnailError/underlying`` error says how (a ``DataLoadingError``, a
    ///   ``ThumbnailDecodingError``, …); of kind ``ThumbnailError/Kind/cancelled`` when the
    ///   calling task is cancelled, which is not counted as a failure.
    public func thumbnail(for request: ThumbnailRequest,
                          progress: (@Sendable (ThumbnailProgress) -> Void)? = nil) async throws -> Thumbnail {
        do {
            return try await self.progress.listening(to: request.url, with: progress) {
                try await tiers.thumbnail(for: request, progress: progress)
            }
        } catch {
            let failure = ThumbnailError(error)
            if failure.kind != .cancelled {
                counters.record { $0.failures += 1 }
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
    /// for them are written, saying whether they are all on disk
    /// (``ThumbnailSet/storageFailure``): what a warm-up waits for.
    /// - Throws: as ``thumbnail(for:progress:)``; the first error of any size.
    public func thumbnails(of url: String, sizes: Set<ThumbnailSize>, priority: RequestPriority = .normal,
                           cachePolicy: CachePolicy = .useCache,
                           progress: (@Sendable (ThumbnailProgress) -> Void)? = nil) async throws -> ThumbnailSet {
        // Counted as wanted before any of them starts, so the first decode makes them all.
        try await requestedSizes.wanting(sizes, of: url) {
            let (thumbnails, storageFailure) = try await writes.watching(url) {
                try await withThrowingTaskGroup(of: (ThumbnailSize, Thumbnail).self) { group in
                    for size in sizes {
                        let request = ThumbnailRequest(url: url, size: size, priority: priority, cachePolicy: cachePolicy)
                        group.addTask { (size, try await self.thumbnail(for: request, progress: progress)) }
                    }
                    return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
                }
            }
            return ThumbnailSet(thumbnails: thumbnails, storageFailure: storageFailure)
        }
    }

    /// Returns once the work that every caller has left (their tasks were
    /// cancelled) has wound down: its transfer closed, its decode stopped, its
    /// original's temporary file removed; and once the copies of work that
    /// finished are written. Callers leave at once; wait for this before
    /// exiting, or before looking at the disk tiers, after cancelling.
    /// Work that other callers still wait for is not waited for.
    public func waitForAbandonedWork() async {
        await renditions.waitForAbandonedWork()
        await writes.waitForAll()
    }

    /// Which copies of `url` the disk tiers hold now, without reading them:
    /// whether the original is there, and which of `sizes` have a thumbnail.
    /// The copies found count as this process's in ``DiskCache/imageEvictions``.
    /// Synchronous: it stats one file per copy, on the caller's thread, so
    /// call it off the main thread and the cooperative pool for many URLs.
    public func storedCopies(of url: String, sizes: Set<ThumbnailSize>) -> StoredCopies {
        guard let disk = configuration.diskCache, let stored else {
            return StoredCopies(hasOriginal: false, thumbnailSizes: [])
        }
        return StoredCopies(hasOriginal: disk.containsEntry(forKey: url, in: .originals, ofImage: url),
                            thumbnailSizes: sizes.filter { stored.contains(ThumbnailKey(url: url, size: $0)) })
    }

    /// The sizes of `url` whose thumbnails the object store lacks, or holds from
    /// another rendering or without a checksum: one HEAD per size, no body read.
    /// All of `sizes` when no object store is configured.
    /// - Throws: the store's error when it cannot be reached or refuses.
    public func sizesMissingFromObjectStore(of url: String, among sizes: Set<ThumbnailSize>) async throws -> Set<ThumbnailSize> {
        guard let shared else { return sizes }
        var missing = Set<ThumbnailSize>()
        for size in sizes where try await !shared.contains(ThumbnailKey(url: url, size: size)) {
            missing.insert(size)
        }
        return missing
    }

    /// Whether the object store lacks the original of `url` when it keeps
    /// originals (``Configuration/keepsOriginalsInObjectStore``): a HEAD. `false` when it does not keep them.
    /// - Throws: the store's error.
    public func originalMissingFromObjectStore(of url: String) async throws -> Bool {
        guard let sharedOriginals else { return false }
        return try await !sharedOriginals.contains(url)
    }

    /// Puts the original of `url` into the object store: from the disk tier when
    /// it has it (streamed), else fetched (and not kept on disk: nothing decoded
    /// it). For an image whose thumbnails the store has already.
    /// - Throws: the store's error, or the fetch's.
    public func putOriginalInObjectStore(of url: String) async throws {
        guard let sharedOriginals else { return }
        let original = try await originals.original(for: OriginalRequest(
            url: url, cachePolicy: .useCache, maximumBytes: configuration.maximumDownloadBytes,
            priority: PriorityFollower(.normal), report: { _ in }))
        try await sharedOriginals.write(original.body, metadata: original.metadata, of: url)
    }

    /// Copies the thumbnails of `url` that the disk tier holds, for `sizes`, to
    /// the object store as they are (the same bytes a rendering would store: the
    /// encoding is deterministic). Returns the sizes copied.
    /// - Throws: the store's error; ``DiskCacheError`` when a stored file cannot be read.
    public func copyStoredThumbnailsToObjectStore(of url: String, sizes: Set<ThumbnailSize>) async throws -> Set<ThumbnailSize> {
        guard let shared, let stored else { return [] }
        var copied = Set<ThumbnailSize>()
        for size in sizes {
            let key = ThumbnailKey(url: url, size: size)
            let diskKey = stored.diskKey(key)
            guard let entry = try await BlockingWork.run({ [stored] in try stored.disk.entry(forKey: diskKey, in: .thumbnails) }),
                  let source = entry.metadata.source
            else { continue }
            try await shared.write(entry.bytes, source: source, origin: DiskCacheMetadata(url: url), for: key)
            copied.insert(size)
        }
        return copied
    }
}
