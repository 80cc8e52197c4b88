/// The role "the thumbnails of one original, at every size its callers
/// want": what the work that requests for a URL share (``SharingTier``) asks
/// for. The keeping tier plays it in front of the rendering tier.
protocol RenditionProviding: Sendable {
    func rendition(of request: RenditionRequest) async throws -> Rendition
}

/// The shared work for one original.
struct RenditionRequest: Sendable {
    let url: String
    let cachePolicy: CachePolicy
    /// The callers' sizes, listeners and priority, as they are now.
    let work: SharedWork
}

/// Thumbnails of one original, and the original they were made of.
struct Rendition: Sendable {
    let thumbnails: [ThumbnailSize: Thumbnail]
    let original: Original
}

/// The rendering tier found the original unchanged on revalidation (a 304):
/// the thumbnails stored of it are current, and the thumbnail disk tier,
/// which has them, answers instead of a decode.
struct OriginalUnchanged: Error {}
