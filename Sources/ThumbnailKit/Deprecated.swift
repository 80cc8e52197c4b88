// Names the public API had before, kept so that an app written against them still compiles, with
// a warning that names what replaced each. The pipeline's `memoryCache` has no alias: it would hand
// apps the memory tier itself, around its accounting; use `memoryStatistics`, `removeFromMemory(_:)`
// and `removeAllFromMemory()`.

extension ThumbnailRowLoader {
    /// A row loader whose thumbnails come from `pipeline`.
    @available(*, deprecated, renamed: "init(provider:)")
    public convenience init(pipeline: ThumbnailPipeline) {
        self.init(provider: pipeline)
    }
}

extension ThumbnailRowController {
    /// A row whose thumbnail comes from `pipeline`.
    @available(*, deprecated, renamed: "init(request:title:provider:)")
    public convenience init(request: ThumbnailRequest, title: String, pipeline: ThumbnailPipeline) {
        self.init(request: request, title: title, provider: pipeline)
    }
}

extension ListController {
    /// A list of `rows`; the pipeline is not used: each row's data source says where its images come from.
    @available(*, deprecated, renamed: "init(rows:)")
    public convenience init(rows: [RowController], pipeline _: ThumbnailPipeline) {
        self.init(rows: rows)
    }

    /// The controller of every row, the list's own for the rows visible or prefetching.
    @available(*, deprecated, message: """
        a list holds the controllers of the rows visible or prefetching only: use rowCount and row(at:); \
        this makes a controller for every other row, each time
        """)
    public var rows: [RowController] {
        (0..<rowCount).compactMap { row(at: $0) }
    }
}

extension ThumbnailDecoder {
    /// A decoder that skips the progressive scans a reduced scale cannot use (`true`:
    /// ``JPEGDecodePath/skippingScans``) or reads every scan (`false`: ``JPEGDecodePath/libjpeg``).
    @available(*, deprecated, message: "use init(size:limits:appliesOrientation:progressivePath:convertsToSRGB:): progressivePath .skippingScans is what true meant, .libjpeg false; the default .dcOnly goes further")
    public init(size: ThumbnailSize = .fit(256), limits: DecodingLimits = .default, appliesOrientation: Bool = true,
                skipsUnneededScans: Bool) {
        self.init(size: size, limits: limits, appliesOrientation: appliesOrientation,
                  progressivePath: skipsUnneededScans ? .skippingScans : .libjpeg)
    }

    /// Whether the decode may leave out progressive scans: any ``progressivePath`` but libjpeg's.
    /// Setting it chooses ``JPEGDecodePath/skippingScans`` (`true`) or ``JPEGDecodePath/libjpeg``.
    @available(*, deprecated, message: "use progressivePath: .skippingScans is what true meant, .libjpeg false; the default .dcOnly goes further")
    public var skipsUnneededScans: Bool {
        get { progressivePath != .libjpeg }
        set { progressivePath = newValue ? .skippingScans : .libjpeg }
    }
}
