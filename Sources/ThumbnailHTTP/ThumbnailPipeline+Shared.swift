extension ThumbnailPipeline {
    /// The pipeline the whole process shares, as Nuke's `ImagePipeline.shared`:
    /// one memory cache, one pair of disk tiers, one set of limits for every caller.
    ///
    /// It is the one given to ``configureShared(_:)``, if the app called that
    /// first; else it is made on first use as
    /// ``Configuration/web(cacheDirectory:diskSizeLimit:http:logger:)`` with
    /// every default: `http(s)://` and `file://` URLs and plain paths, the disk
    /// tiers in ``/ThumbnailKit/CacheLocation/defaultDirectory()``. The first use that
    /// returns fixes it for the life of the process.
    ///
    /// ```swift
    /// let thumbnail = try await ThumbnailPipeline.shared.thumbnail(for: url, size: 256)
    /// ```
    ///
    /// - Throws: when the default is made and its directory must not or cannot
    ///   hold a cache (``/ThumbnailKit/UnsafeCacheDirectory``, ``/ThumbnailKit/DiskCacheError``), so that an
    ///   app never runs without the disk tier it expects. Nothing is fixed then:
    ///   each use throws again until the directory is fixed, or the app calls
    ///   ``configureShared(_:)`` with a directory of its own, or with
    ///   `.web(diskCache: nil)` for memory only. It never throws once it has
    ///   returned a pipeline.
    public static var shared: ThumbnailPipeline {
        get throws { try sharedSlot.pipeline() }
    }

    /// Sets what ``shared`` is, once, before its first use: at launch, before
    /// anything asks for a thumbnail.
    ///
    /// ```swift
    /// try ThumbnailPipeline.configureShared(.web(cacheDirectory: appCacheDirectory, diskSizeLimit: 256 << 20))
    /// // later, anywhere:
    /// let thumbnail = try await ThumbnailPipeline.shared.thumbnail(for: url, size: 256)
    /// ```
    ///
    /// An app that wants tiers of its own (``/ThumbnailKit/ThumbnailPipeline/init(configuration:rendering:fetching:)``)
    /// makes that pipeline and keeps it instead.
    /// - Throws: ``SharedPipelineError/alreadyInUse`` after ``shared`` has
    ///   returned a pipeline, ``SharedPipelineError/alreadyConfigured`` on a
    ///   second call; the shared pipeline stays as it was.
    public static func configureShared(_ configuration: Configuration) throws(SharedPipelineError) {
        try sharedSlot.configure(configuration)
    }

    /// The process's one slot behind ``shared``.
    static let sharedSlot = SharedPipelineSlot { try .web() }
}
