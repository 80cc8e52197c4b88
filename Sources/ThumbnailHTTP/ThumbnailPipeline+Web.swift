import Logging

extension ThumbnailPipeline {
    /// The pipeline most apps want, made on first use and shared by the whole
    /// process, as Nuke's `ImagePipeline.shared`: `http(s)://` and `file://`
    /// URLs and plain paths, the disk tiers at
    /// ``CacheLocation/defaultDirectory()``, every other setting its default
    /// (see ``Configuration/web(cacheDirectory:diskSizeLimit:http:logger:)``).
    ///
    /// ```swift
    /// let thumbnail = try await ThumbnailPipeline.shared.thumbnail(for: url, size: 256)
    /// ```
    ///
    /// Creating it never fails: when the default directory cannot hold a
    /// cache, it keeps thumbnails in memory only and logs a warning (check
    /// `configuration.diskCache`). An app that needs other settings makes its
    /// own pipeline with ``init(configuration:)`` and keeps it.
    public static let shared = ThumbnailPipeline(configuration: .web())
}

extension ThumbnailPipeline.Configuration {
    /// Web and local images with a disk tier: ``HTTPDataLoader`` for
    /// `http(s)://` URLs, ``FileDataLoader`` for the rest, and a
    /// ``DiskCache`` in `cacheDirectory`.
    ///
    /// Any address may be reached (``HTTPDataLoader/AddressPolicy/any``), as
    /// an app showing what its user chose wants. A server that fetches URLs
    /// strangers supply passes `http: .init(addressPolicy: .publicOnly)`.
    ///
    /// Nothing here fails, so that the one-line entry point cannot: a
    /// directory that must not or cannot hold a cache (`/`, the home
    /// directory, a folder of other files, one without write permission)
    /// leaves the pipeline in memory only, and a libcurl that cannot start
    /// fails each web request with the reason; both are logged as warnings.
    /// - Parameters:
    ///   - cacheDirectory: where the originals and encoded thumbnails go.
    ///     Default: ``CacheLocation/defaultDirectory()`` (`$THUMBNAILER_CACHE_DIR`,
    ///     else the user's cache folder).
    ///   - diskSizeLimit: bytes on disk for both tiers. Default: 1 GiB.
    ///   - http: the transport's limits and address policy. Default: ``HTTPDataLoader/Configuration``'s.
    ///   - logger: where the pipeline, and the fallbacks above, say what they do.
    public static func web(cacheDirectory: String = CacheLocation.defaultDirectory(), diskSizeLimit: Int = 1 << 30,
                           http: HTTPDataLoader.Configuration = HTTPDataLoader.Configuration(),
                           logger: Logger = Logger(label: "thumbnailer.pipeline")) -> Self {
        Self(dataLoader: SchemeRoutingDataLoader(network: networkLoader(http, logger: logger)),
             diskCache: diskCache(in: cacheDirectory, sizeLimit: diskSizeLimit, logger: logger),
             logger: logger)
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

    private static func diskCache(in directory: String, sizeLimit: Int, logger: Logger) -> DiskCache? {
        if let refusal = CacheLocation.refusal(for: directory) {
            logger.warning("thumbnails kept in memory only", metadata: ["reason": "\(refusal)"])
            return nil
        }
        do {
            return try DiskCache(directory: directory, sizeLimit: sizeLimit)
        } catch {
            logger.warning("thumbnails kept in memory only", metadata: ["reason": "\(error)"])
            return nil
        }
    }
}
