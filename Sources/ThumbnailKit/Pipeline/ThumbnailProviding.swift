/// The role "a thumbnail for a request": what rows, lists and prefetching
/// depend on. ``ThumbnailPipeline`` plays it, and so can any stand-in (a
/// test's in-memory provider, an app's own tier in front of the pipeline).
public protocol ThumbnailProviding: Sendable {
    /// The thumbnail if it can be had at once, without suspending (from
    /// memory), for a row being configured; `nil` otherwise.
    func cachedThumbnail(for request: ThumbnailRequest) -> Thumbnail?

    /// The thumbnail for `request`.
    /// - Parameters:
    ///   - request: the image, its size, priority and cache policy.
    ///   - progress: called with what the request is doing (bytes
    ///     arriving, a retry waiting, decoding), in order, on any thread.
    /// - Throws: the provider's errors (the pipeline's are ``ThumbnailError``); when the calling
    ///   task is cancelled, one that ``ThumbnailError/isCancellation(_:)`` recognises.
    func thumbnail(for request: ThumbnailRequest,
                   progress: (@Sendable (ThumbnailProgress) -> Void)?) async throws -> Thumbnail
}

extension ThumbnailProviding {
    /// The thumbnail for `request`, without progress.
    public func thumbnail(for request: ThumbnailRequest) async throws -> Thumbnail {
        try await thumbnail(for: request, progress: nil)
    }
}

extension ThumbnailPipeline: ThumbnailProviding {}
