import ThumbnailHTTP

/// A web image's thumbnail in two lines: the shared pipeline, its memory and disk tiers.
func firstThumbnail(of url: String) async throws -> Thumbnail {
    let thumbnail = try await ThumbnailPipeline.shared.thumbnail(for: url, size: 256)
    return thumbnail  // RGBA8 pixels, at most 256×256, the original's facts in `source`
}
