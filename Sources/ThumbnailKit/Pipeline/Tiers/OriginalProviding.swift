/// The role "the original bytes of a URL": what the rendering tier decodes.
/// The original disk tier plays it in front of the fetch, and the fetch is a
/// chain of such tiers too (retrying, limiting, the network); an app can put
/// its own in that chain (see ``ThumbnailPipeline/init(configuration:rendering:fetching:)``).
public protocol OriginalProviding: Sendable {
    /// The original `request` names, as its cache policy allows.
    /// - Throws: ``DataLoadingError``, a ``DiskCacheError`` of the original
    ///   tier, or `CancellationError` when the calling task is cancelled.
    func original(for request: OriginalRequest) async throws -> Original
}

/// What an ``OriginalProviding`` tier is asked for: a URL, which stored copy
/// may answer, and where a download lands.
public struct OriginalRequest: Sendable {
    /// The original's URL.
    public var url: String
    /// Which stored copies may answer.
    public var cachePolicy: CachePolicy
    /// A stored copy's validators: ask the server for a body only if it changed.
    public var validators: DataRequest.Validators?
    /// The largest body accepted.
    public var maximumBytes: Int
    /// Where a download's body goes: the original tier's temporary file, or memory without a disk tier.
    var landing: OriginalLanding = .memory
    /// The priority of everyone waiting, followed into the download queue as it rises.
    let priority: PriorityFollower
    /// Where a tier says what it does (bytes arriving, a retry waiting).
    let report: @Sendable (ThumbnailProgress) -> Void
}

/// An original's bytes, where they are, and how to keep them.
public struct Original: Sendable {
    /// Where the bytes are.
    public enum Body: Sendable {
        /// Checked and open in the original tier.
        case stored(OpenedDiskCacheEntry)
        /// Downloaded into the original tier's temporary file, not committed yet.
        case downloaded(DiskCacheEntryWriter)
        /// In memory (no disk tier, or a tier of the app's that had them).
        case memory([UInt8])
    }

    /// The bytes: stored, downloaded but not committed, or in memory.
    public var body: Body
    /// What the server said about it (validators, media type).
    public var metadata: DiskCacheMetadata
    /// Keeps the bytes in the original tier once they have decoded (a
    /// corrupt original is never kept); `nil` when there is nothing to keep.
    /// Run after the thumbnails made of it reached their callers, and before
    /// the pipeline reports the work done.
    public var keep: (@Sendable () async throws -> Void)?
    /// The server answered 304: the stored copy the validators named is current.
    var isNotModified = false
    /// Read from the object store's originals: no need to put it there again.
    var isFromObjectStore = false

    /// An original ready to decode.
    /// - Parameters:
    ///   - body: Where the bytes are.
    ///   - metadata: What the server said about them.
    ///   - keep: Keeps the bytes once they have decoded. Default: `nil`, nothing to keep.
    public init(body: Body, metadata: DiskCacheMetadata, keep: (@Sendable () async throws -> Void)? = nil) {
        self.body = body
        self.metadata = metadata
        self.keep = keep
    }

    /// Fetched now rather than read from the original tier.
    var isNew: Bool { if case .stored = body { false } else { true } }
}
