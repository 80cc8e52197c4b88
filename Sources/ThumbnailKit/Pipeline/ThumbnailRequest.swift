/// What a caller wants: an image at a URL, fitted to a size.
public struct ThumbnailRequest: Sendable, Hashable {
    /// An `http(s)://` or `file://` URL, or a plain path.
    public var url: String
    /// The box the thumbnail fits in. Default: 256 × 256.
    public var size: ThumbnailSize
    /// How urgently it is wanted. Default: ``RequestPriority/normal``.
    public var priority: RequestPriority
    /// Which stored copies may answer. Default: ``CachePolicy/useCache``.
    public var cachePolicy: CachePolicy

    /// A request for the thumbnail of the image at `url`.
    /// - Parameters:
    ///   - url: An `http(s)://` or `file://` URL, or a plain path.
    ///   - size: The box the thumbnail fits in. Default: 256 × 256.
    ///   - priority: How urgently it is wanted. Default: ``RequestPriority/normal``.
    ///   - cachePolicy: Which stored copies may answer. Default: ``CachePolicy/useCache``.
    public init(url: String, size: ThumbnailSize = .fit(256), priority: RequestPriority = .normal,
                cachePolicy: CachePolicy = .useCache) {
        self.url = url
        self.size = size
        self.priority = priority
        self.cachePolicy = cachePolicy
    }

    /// The identity of the thumbnail this request makes: URL and size.
    public var key: ThumbnailKey { ThumbnailKey(url: url, size: size) }
}

/// One thumbnail's identity in the caches: the source URL and the box.
public struct ThumbnailKey: Sendable, Hashable, CustomStringConvertible {
    /// The source image's URL or path, exactly as requested (not normalised).
    public var url: String
    /// The box the thumbnail fits in.
    public var size: ThumbnailSize

    /// The key of the thumbnail of `url` at `size`.
    public init(url: String, size: ThumbnailSize) {
        self.url = url
        self.size = size
    }

    public var description: String { "\(url) @\(size)" }
}

/// Which stored copies may answer a request.
public enum CachePolicy: Sendable, Hashable {
    /// Memory, then the thumbnail disk tier, then the stored original, then the network.
    case useCache
    /// Ask the server whether the stored original is still current
    /// (`If-None-Match`/`If-Modified-Since`); a 304 reuses what is stored at
    /// the cost of no body, anything else replaces it.
    case revalidate
    /// Ignore every stored copy and download again (then store the result).
    case reload
}
