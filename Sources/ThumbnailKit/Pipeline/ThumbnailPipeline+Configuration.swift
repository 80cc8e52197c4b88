import Logging

extension ThumbnailPipeline {
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
        /// coefficient; see `ThumbnailDecoder/wholeImageBufferBytes(for:)`) at
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

        /// A configuration; every parameter sets the property of the same name.
        /// - Parameters:
        ///   - dataLoader: Where bytes come from. Default: a ``FileDataLoader``.
        ///   - diskCache: The disk tiers; `nil` for memory only. Default: `nil`.
        ///   - objectStore: A store of thumbnails shared by many machines. Default: `nil`, none.
        ///   - keepsOriginalsInObjectStore: Whether originals go into the object store too. Default: `false`.
        ///   - memoryCostLimit: The memory cache's budget in bytes of pixels. Default: 64 MiB.
        ///   - maximumConcurrentDownloads: Transfers at once. Default: 6.
        ///   - maximumConcurrentDecodes: Decodes at once. Default: ``ThumbnailPipeline/processorCount``.
        ///   - maximumConcurrentLargeDecodes: Large decodes at once. Default: 1.
        ///   - largeDecodeBytes: The whole-image buffer, in bytes, that makes a decode large. Default: 4 MiB.
        ///   - retryPolicy: When to try a failed fetch again. Default: ``RetryPolicy/default``.
        ///   - maximumDownloadBytes: The largest original accepted, in bytes. Default: 50 MB.
        ///   - decoder: Limits and orientation for every decode. Default: `ThumbnailDecoder()`.
        ///   - encoder: How thumbnails are encoded for storage. Default: `ThumbnailEncoder()`.
        ///   - logger: Where the pipeline logs. Default: a logger labelled `thumbnailer.pipeline`.
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
}
