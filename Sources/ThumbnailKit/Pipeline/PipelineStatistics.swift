/// What a pipeline has done since it was made: for status lines, summaries and tests.
public struct PipelineStatistics: Sendable, Hashable {
    /// Requests answered from the memory cache: one per request at most.
    public var memoryHits = 0
    /// Requests the memory cache could have answered but did not have: one
    /// per request at most (``ThumbnailPipeline/cachedThumbnail(for:)`` counts none).
    public var memoryMisses = 0
    /// Thumbnails read back from the thumbnail disk tier.
    public var thumbnailDiskHits = 0
    /// Thumbnails read from the object store (``ThumbnailPipeline/Configuration/objectStore``).
    public var objectStoreHits = 0
    /// Originals read from the object store instead of fetched from their origin.
    public var objectStoreOriginalHits = 0
    /// Originals read back from the original disk tier instead of fetched.
    public var originalDiskHits = 0
    /// Fetches that returned a body (HTTP GETs with 2xx, file reads).
    public var downloads = 0
    /// Conditional requests answered 304: the stored original was current.
    public var notModified = 0
    /// Body bytes fetched.
    public var bytesDownloaded = 0
    /// Originals decoded (one decode can make several sizes).
    public var decodes = 0
    /// Of those, decodes that needed a whole-image buffer and ran under the large-decode limit.
    public var largeDecodes = 0
    /// Fetch attempts repeated after a transient failure.
    public var retries = 0
    /// Requests that ended in an error other than cancellation.
    public var failures = 0

    package init() {}

    /// What happened since `earlier` was taken: each counter's difference.
    package func subtracting(_ earlier: PipelineStatistics) -> PipelineStatistics {
        var difference = PipelineStatistics()
        difference.memoryHits = memoryHits - earlier.memoryHits
        difference.memoryMisses = memoryMisses - earlier.memoryMisses
        difference.thumbnailDiskHits = thumbnailDiskHits - earlier.thumbnailDiskHits
        difference.objectStoreHits = objectStoreHits - earlier.objectStoreHits
        difference.objectStoreOriginalHits = objectStoreOriginalHits - earlier.objectStoreOriginalHits
        difference.originalDiskHits = originalDiskHits - earlier.originalDiskHits
        difference.downloads = downloads - earlier.downloads
        difference.notModified = notModified - earlier.notModified
        difference.bytesDownloaded = bytesDownloaded - earlier.bytesDownloaded
        difference.decodes = decodes - earlier.decodes
        difference.largeDecodes = largeDecodes - earlier.largeDecodes
        difference.retries = retries - earlier.retries
        difference.failures = failures - earlier.failures
        return difference
    }
}
