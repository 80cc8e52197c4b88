import ThumbnailKit

/// A tier of the app's own: originals shipped with the app answer at once,
/// the fetch below brings the rest.
struct BundledOriginals: OriginalProviding {
    let next: any OriginalProviding
    let bundled: [String: [UInt8]]

    func original(for request: OriginalRequest) async throws -> Original {
        guard let bytes = bundled[request.url] else { return try await next.original(for: request) }
        return Original(body: .memory(bytes), metadata: DiskCacheMetadata(url: request.url))
    }
}

func makePipeline(disk: DiskCache, bundled: [String: [UInt8]]) -> ThumbnailPipeline {
    ThumbnailPipeline(configuration: .init(diskCache: disk),
                      fetching: { fetch in BundledOriginals(next: fetch, bundled: bundled) })
}
