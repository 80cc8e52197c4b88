import ThumbnailHTTP

/// A server making thumbnails of URLs that strangers send: public addresses only.
let serverPipeline = ThumbnailPipeline(configuration: .web(
    cacheDirectory: "/var/cache/thumbnails",
    http: HTTPDataLoader.Configuration(addressPolicy: .publicOnly)))
