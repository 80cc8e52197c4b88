import ThumbnailHTTP

/// A server making thumbnails of URLs that strangers send: public addresses only. A cache
/// directory it must not or cannot use throws (`UnsafeCacheDirectory`, `DiskCacheError`) at start.
func makeServerPipeline() throws -> ThumbnailPipeline {
    ThumbnailPipeline(configuration: try .web(
        cacheDirectory: "/var/cache/thumbnails",
        http: HTTPDataLoader.Configuration(addressPolicy: .publicOnly)))
}
