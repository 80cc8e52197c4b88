import ThumbnailHTTP

func makePipeline() throws -> ThumbnailPipeline {
    ThumbnailPipeline(configuration: .init(
        dataLoader: SchemeRoutingDataLoader(network: try HTTPDataLoader()),  // http(s) by libcurl, the rest from files
        diskCache: try DiskCache(directory: CacheLocation.defaultDirectory(), sizeLimit: 512 << 20),
        memoryCostLimit: 32 << 20))                                         // bytes of pixels
}

func visibleThumbnail(of url: String, in pipeline: ThumbnailPipeline) async throws -> Thumbnail {
    try await pipeline.thumbnail(for: ThumbnailRequest(url: url, size: .fit(256), priority: .visible)) { progress in
        print(progress.percent ?? 0, progress.message ?? "")  // 0…100 while bytes arrive, retry messages, decoding
    }
}
