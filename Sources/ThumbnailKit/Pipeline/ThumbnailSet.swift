/// Thumbnails of one image at several sizes, and whether the disk tiers kept
/// what was made for them (see ``ThumbnailPipeline/thumbnails(of:sizes:priority:cachePolicy:progress:)``).
public struct ThumbnailSet: Sendable {
    /// A thumbnail for each size asked for.
    public var thumbnails: [ThumbnailSize: Thumbnail]
    /// Why a copy made for these thumbnails (the original, or an encoded
    /// thumbnail) is not stored: a ``DiskCacheError``
    /// (``DiskCacheError/storageFull(_:_:)`` on a full disk) or a
    /// ``ThumbnailEncodingError``; `nil` when everything made was stored.
    ///
    /// The thumbnails are good either way, and in the memory cache: a list
    /// shows them; a warm-up, whose job is the disk, counts the image as failed.
    public var storageFailure: (any Error)?
    /// The sizes whose encoded thumbnail was written (on disk, in the object store) for this call.
    var written: Set<ThumbnailSize> = []

    /// A set of thumbnails (from a tier of the app's own, or a test).
    /// - Parameters:
    ///   - thumbnails: A thumbnail for each size asked for.
    ///   - storageFailure: Why a copy made for them was not stored. Default: `nil`, everything was.
    public init(thumbnails: [ThumbnailSize: Thumbnail], storageFailure: (any Error)? = nil) {
        self.thumbnails = thumbnails
        self.storageFailure = storageFailure
    }

    init(thumbnails: [ThumbnailSize: Thumbnail], kept: KeptCopies) {
        self.init(thumbnails: thumbnails, storageFailure: kept.failure)
        written = kept.thumbnailsOnDisk.union(kept.thumbnailsInStore)
    }
}
