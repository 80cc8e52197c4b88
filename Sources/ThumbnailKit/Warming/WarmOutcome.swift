/// What warming one image did.
package enum WarmOutcome: Sendable, Hashable {
    /// The original and every requested thumbnail were on disk: nothing read, fetched or written.
    case alreadyCached
    /// Downloaded (this many body bytes), decoded once, stored.
    case fetched(bytes: Int)
    /// The original was on disk; the missing thumbnails were made from it.
    case madeFromStoredOriginal
    /// The object store lacked thumbnails the disk tier had: they were copied to it as they are.
    case copiedToObjectStore
    /// Revalidated (`--refresh`): the server answered 304, the stored copies stay.
    case notModified
    /// It failed; the reason is the error's description, and whether a later run may
    /// succeed (``ThumbnailError/isTransient``).
    case failed(reason: String, transient: Bool)
    /// Stopped by cancellation before it finished: nothing partial was stored.
    case cancelled
}
