import Logging
import ThumbnailHTTP
import ThumbnailKit

/// How this package's executables make their pipeline: thumbnailer's `warm`
/// and `browse`, memory-profile, and any command to come. One place turns
/// their options into a pipeline, built on
/// ``ThumbnailPipeline/Configuration/web(diskCache:http:logger:)``: web
/// downloads through libcurl, files from disk, the disk tiers the command
/// opened. Whatever a command does not set keeps the library's default.
///
/// ```swift
/// var wiring = PipelineWiring(diskCache: try DiskCache(directory: directory), transport: transport)
/// wiring.memoryCostLimit = 32 << 20
/// let pipeline = wiring.makePipeline()
/// ```
///
/// The command opens the disk cache itself: it refuses or forces the
/// directory (`--force`) and says why with its own exit status. A libcurl
/// that cannot start fails each web request here; the commands learn of it
/// first from the feed loader they make, which fails the command.
package struct PipelineWiring {
    /// The disk tiers; `nil` for memory only.
    package var diskCache: DiskCache?
    /// Web downloads' timeouts, speed floor and address policy.
    package var transport: HTTPDataLoader.Configuration
    /// The store a fleet shares, and whether originals go there too.
    package var objectStore: (any ObjectStore)?
    package var keepsOriginalsInObjectStore: Bool
    /// The memory cache's budget in bytes of pixels (0: none).
    package var memoryCostLimit: Int
    package var maximumConcurrentDownloads: Int
    package var maximumConcurrentDecodes: Int
    package var retryPolicy: RetryPolicy
    package var maximumDownloadBytes: Int
    /// Limits and orientation of every decode.
    package var decoder: ThumbnailDecoder
    package var logger: Logger

    /// The library's defaults, with these disk tiers and transport.
    package init(diskCache: DiskCache?, transport: HTTPDataLoader.Configuration = HTTPDataLoader.Configuration(),
                 logger: Logger = Logger(label: "thumbnailer.pipeline")) {
        let defaults = ThumbnailPipeline.Configuration()
        self.diskCache = diskCache
        self.transport = transport
        objectStore = defaults.objectStore
        keepsOriginalsInObjectStore = defaults.keepsOriginalsInObjectStore
        memoryCostLimit = defaults.memoryCostLimit
        maximumConcurrentDownloads = defaults.maximumConcurrentDownloads
        maximumConcurrentDecodes = defaults.maximumConcurrentDecodes
        retryPolicy = defaults.retryPolicy
        maximumDownloadBytes = defaults.maximumDownloadBytes
        decoder = defaults.decoder
        self.logger = logger
    }

    /// The pipeline these settings describe.
    package func makePipeline() -> ThumbnailPipeline {
        var configuration = ThumbnailPipeline.Configuration.web(diskCache: diskCache, http: transport, logger: logger)
        configuration.objectStore = objectStore
        configuration.keepsOriginalsInObjectStore = keepsOriginalsInObjectStore
        configuration.memoryCostLimit = memoryCostLimit
        configuration.maximumConcurrentDownloads = maximumConcurrentDownloads
        configuration.maximumConcurrentDecodes = maximumConcurrentDecodes
        configuration.retryPolicy = retryPolicy
        configuration.maximumDownloadBytes = maximumDownloadBytes
        configuration.decoder = decoder
        return ThumbnailPipeline(configuration: configuration)
    }
}
