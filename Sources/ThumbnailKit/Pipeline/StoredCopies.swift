/// What the disk tiers hold of one image (see ``ThumbnailPipeline/storedCopies(of:sizes:)``).
public struct StoredCopies: Sendable, Hashable {
    /// The original's bytes are stored.
    public var hasOriginal: Bool
    /// The sizes asked about that have an encoded thumbnail stored.
    public var thumbnailSizes: Set<ThumbnailSize>

    public init(hasOriginal: Bool, thumbnailSizes: Set<ThumbnailSize>) {
        self.hasOriginal = hasOriginal
        self.thumbnailSizes = thumbnailSizes
    }
}
