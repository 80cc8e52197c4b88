/// Why ``ThumbnailPipeline`` could not make a thumbnail: the one error type
/// its requests throw, with a ``kind`` an app switches on and the
/// ``underlying`` error that says exactly what happened.
///
/// ```swift
/// do {
///     row.image = try await pipeline.thumbnail(for: request)
/// } catch let error as ThumbnailError {
///     switch error.kind {
///     case .cancelled: break                          // the row was reused: show nothing
///     case .fetch:
///         if case .httpStatus(_, 404, _)? = error.underlying as? DataLoadingError { row.showMissing() }
///         else { row.showRetry(error.description) }
///     case .decode: row.showBroken()                  // the same bytes will not decode next time either
///     case .storage, .store, .other: row.showRetry(error.description)
///     }
/// }
/// ```
public struct ThumbnailError: Error, Sendable, CustomStringConvertible {
    /// What failed, by the part of the pipeline that failed.
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        /// The calling task was cancelled: not a failure to show (a row scrolled away).
        /// ``underlying`` is a `CancellationError`.
        case cancelled
        /// The original could not be fetched: an HTTP status, a transport failure, a body
        /// over the size limit, a missing file. ``underlying`` is a ``DataLoadingError``.
        case fetch
        /// The image could not be decoded (corrupt, truncated, over a limit, not a known
        /// format: ``ThumbnailDecodingError``) or its thumbnail encoded (``ThumbnailEncodingError``).
        case decode
        /// The disk cache could not be written or read where the request needed it (a full
        /// disk, a shard folder that is a link): ``DiskCacheError``, ``FileOperationError``
        /// or ``UnsafeCacheDirectory``.
        case storage
        /// The object store failed: an error of a type that conforms to ``ObjectStoreError``
        /// (`S3Error` in ThumbnailHTTP).
        case store
        /// None of these: an error of a type ThumbnailKit does not know, thrown by a tier,
        /// data loader or store of the app's own.
        case other

        public var description: String {
            switch self {
            case .cancelled: "cancelled"
            case .fetch: "fetch"
            case .decode: "decode"
            case .storage: "storage"
            case .store: "store"
            case .other: "other"
            }
        }
    }

    /// What failed.
    public let kind: Kind
    /// The error as the failing part threw it, for the detail `kind` does not carry:
    /// `error.underlying as? DataLoadingError` for the HTTP status, say.
    public let underlying: any Error

    /// An error of `kind`, for a tier or provider of the app's own that throws as the pipeline does.
    public init(kind: Kind, underlying: any Error) {
        self.kind = kind
        self.underlying = underlying
    }

    /// `error` filed under the kind its type says; a ``ThumbnailError`` stays as it is.
    public init(_ error: any Error) {
        if let error = error as? ThumbnailError {
            self = error
            return
        }
        underlying = error
        kind = switch error {
        case is CancellationError: .cancelled
        case is DataLoadingError: .fetch
        case is ThumbnailDecodingError, is ThumbnailEncodingError: .decode
        case is DiskCacheError, is FileOperationError, is UnsafeCacheDirectory: .storage
        case is any ObjectStoreError: .store
        default: .other
        }
    }

    /// Whether `error` says that a request was cancelled: a ``ThumbnailError`` of kind
    /// ``Kind/cancelled``, or a `CancellationError`, which a ``ThumbnailProviding`` other than
    /// the pipeline (a test's stand-in) may throw instead. Code that takes any provider asks this.
    public static func isCancellation(_ error: any Error) -> Bool {
        error is CancellationError || (error as? ThumbnailError)?.kind == .cancelled
    }

    /// Whether asking again later may succeed: a fetch that failed transiently
    /// (``DataLoadingError/isTransient``: a timeout, a dropped connection, 503…) or an
    /// object store that could not be reached or answered so (``ObjectStoreError/isTransient``).
    /// Never a decode, a full disk, a cancellation, or an error ThumbnailKit does not know.
    public var isTransient: Bool {
        switch kind {
        case .fetch: (underlying as? DataLoadingError)?.isTransient ?? false
        case .store: (underlying as? any ObjectStoreError)?.isTransient ?? false
        case .cancelled, .decode, .storage, .other: false
        }
    }

    /// The underlying error's message, which names the URL or file and what went wrong
    /// (`https://example.com/a.jpg: HTTP 404`); "cancelled" for a cancellation.
    public var description: String {
        kind == .cancelled ? "cancelled" : "\(underlying)"
    }
}
