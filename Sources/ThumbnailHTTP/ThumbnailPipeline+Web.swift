import Logging

extension ThumbnailPipeline.Configuration {
    /// Web and local images with a disk tier: ``HTTPDataLoader`` for
    /// `http(s)://` URLs, ``/ThumbnailKit/FileDataLoader`` for the rest, and a
    /// ``/ThumbnailKit/DiskCache`` in `cacheDirectory`.
    ///
    /// Any address may be reached (``HTTPDataLoader/AddressPolicy/any``), as
    /// an app showing what its user chose wants. A server that fetches URLs
    /// strangers supply passes `http: .init(addressPolicy: .publicOnly)`.
    ///
    /// ```swift
    /// let pipeline = ThumbnailPipeline(configuration: try .web(cacheDirectory: "/var/cache/thumbnails"))
    /// ```
    ///
    /// A directory that is no place for a cache, or that cannot hold one,
    /// throws here rather than leaving the app without its disk tier, which
    /// would download every image again at each launch. Thumbnails in memory
    /// only, on purpose, are ``web(diskCache:http:logger:)`` with `nil`; a
    /// directory this refuses that the app wants anyway is a ``/ThumbnailKit/DiskCache`` the
    /// app opens and passes there. A libcurl that cannot start does not throw:
    /// files still load, and each web request fails with the reason (logged
    /// as a warning too).
    /// - Parameters:
    ///   - cacheDirectory: where the originals and encoded thumbnails go.
    ///     Default: ``/ThumbnailKit/CacheLocation/defaultDirectory()`` (`$THUMBNAILER_CACHE_DIR`,
    ///     else the user's cache folder).
    ///   - diskSizeLimit: bytes on disk for both tiers. Default: 1 GiB.
    ///   - http: the transport's limits and address policy. Default: ``HTTPDataLoader/Configuration``'s.
    ///   - logger: where the pipeline says what it does.
    /// - Throws: ``/ThumbnailKit/UnsafeCacheDirectory`` for `/`, the home directory or a
    ///   folder of other files (``/ThumbnailKit/CacheLocation/refusal(for:)``), before
    ///   anything is written there; ``/ThumbnailKit/DiskCacheError`` when the directory cannot
    ///   be made, opened or written (a file in the way, no permission).
    public static func web(cacheDirectory: String = CacheLocation.defaultDirectory(), diskSizeLimit: Int = 1 << 30,
                           http: HTTPDataLoader.Configuration = HTTPDataLoader.Configuration(),
                           logger: Logger = Logger(label: "thumbnailer.pipeline")) throws -> Self {
        if let refusal = CacheLocation.refusal(for: cacheDirectory) { throw refusal }
        return web(diskCache: try DiskCache(directory: cacheDirectory, sizeLimit: diskSizeLimit), http: http, logger: logger)
    }

    /// Web and local images as ``web(cacheDirectory:diskSizeLimit:http:logger:)``,
    /// with a disk cache the caller opened (in a directory of its choosing,
    /// checked as it sees fit), or `nil`: thumbnails in memory only, on purpose.
    ///
    /// ```swift
    /// let inMemory = ThumbnailPipeline(configuration: .web(diskCache: nil))
    /// ```
    /// - Parameters:
    ///   - diskCache: the disk tiers, or `nil` for none.
    ///   - http: the transport's limits and address policy. Default: ``HTTPDataLoader/Configuration``'s.
    ///   - logger: where the pipeline, and a libcurl that cannot start, say what they do.
    public static func web(diskCache: DiskCache?, http: HTTPDataLoader.Configuration = HTTPDataLoader.Configuration(),
                           logger: Logger = Logger(label: "thumbnailer.pipeline")) -> Self {
        Self(dataLoader: SchemeRoutingDataLoader(network: networkLoader(http, logger: logger)),
             diskCache: diskCache, logger: logger)
    }

    private static func networkLoader(_ configuration: HTTPDataLoader.Configuration,
                                      logger: Logger) -> any DataLoading {
        do {
            return try HTTPDataLoader(configuration: configuration)
        } catch {
            logger.warning("web images unavailable", metadata: ["error": "\(error)"])
            return UnavailableDataLoader(reason: "\(error)")
        }
    }
}
