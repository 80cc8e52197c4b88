/// An error of an ``ObjectStore``, which ``ThumbnailError`` files under
/// ``ThumbnailError/Kind/store``: ThumbnailKit cannot name the stores'
/// own error types (`S3Error` is in ThumbnailHTTP), so they say what they
/// are by conforming. A store of the app's own does the same for its errors.
public protocol ObjectStoreError: Error {
    /// Whether the same request may succeed later: the store could not be reached,
    /// or it answered a status that says so (503, 500, 429). A store of the app's own
    /// that does not say is taken as permanent.
    var isTransient: Bool { get }
}

extension ObjectStoreError {
    public var isTransient: Bool { false }
}
