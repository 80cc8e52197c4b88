import ThumbnailHTTP

func thumbnailOfPhoto() async throws -> Thumbnail {
    try await ThumbnailPipeline.shared.thumbnail(for: "https://example.com/photo.jpg", size: 256)
}
