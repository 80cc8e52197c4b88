/// An error of an ``ObjectStore``, which ``ThumbnailError`` files under
/// ``ThumbnailError/Kind/store``: ThumbnailKit cannot name the stores'
/// own error types (`S3Error` is in ThumbnailHTTP), so they say what they
/// are by conforming. A store of the app's own does the same for its errors.
public protocol ObjectStoreError: Error {}
