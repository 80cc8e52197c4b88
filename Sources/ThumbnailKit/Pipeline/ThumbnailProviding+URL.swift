extension ThumbnailProviding {
    /// The thumbnail of the image at `url`, fitted to `size`: the one call
    /// most code needs, without building a ``ThumbnailRequest``.
    ///
    /// ```swift
    /// let thumbnail = try await pipeline.thumbnail(for: "https://example.com/photo.jpg", size: 256)
    /// ```
    /// - Throws: as ``thumbnail(for:progress:)``.
    public func thumbnail(for url: String, size: ThumbnailSize = .fit(256),
                          priority: RequestPriority = .normal) async throws -> Thumbnail {
        try await thumbnail(for: ThumbnailRequest(url: url, size: size, priority: priority), progress: nil)
    }
}
