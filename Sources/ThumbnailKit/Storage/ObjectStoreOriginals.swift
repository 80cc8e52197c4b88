import Synchronization

/// The originals of an ``ObjectStore``, when the pipeline keeps them there
/// (``ThumbnailPipeline/Configuration/keepsOriginalsInObjectStore``): so that a
/// fleet making a new size later asks the store, not the origin.
///
/// An original's key is ``CacheKeys/originalInStore(_:)``. Its metadata: `source-url`,
/// `origin-etag`, `origin-last-modified`, `content-type` (what the origin
/// said), and `sha256` of its bytes, checked as they stream in: a mismatch is
/// never kept.
struct ObjectStoreOriginals: Sendable {
    let store: any ObjectStore
    let keys: CacheKeys

    /// Whether the store holds the original of `url` with its checksum (a HEAD).
    /// - Throws: the store's error.
    func contains(_ url: String) async throws -> Bool {
        guard let metadata = try await store.metadata(forKey: keys.originalInStore(url)) else { return false }
        return metadata["source-url"] == ObjectMetadata.encodedURL(url) && metadata["sha256"]?.utf8.count == 64
    }

    /// Streams the stored original of `url` into a sink made for the origin's
    /// facts (its validators and media type, as the origin sent them), checking
    /// the bytes against their checksum. Returns those facts, or `nil` when the
    /// store has no such original.
    /// - Throws: the store's or the sink's error; ``ObjectStoreOriginalError`` when
    ///   the bytes do not match their checksum (the sink then must not be kept).
    func load(_ url: String, maximumBytes: Int,
              makeSink: (ResponseHead) -> any BodySink) async throws -> DiskCacheMetadata? {
        let key = keys.originalInStore(url)
        guard let metadata = try await store.metadata(forKey: key),
              metadata["source-url"] == ObjectMetadata.encodedURL(url), let checksum = metadata["sha256"]
        else { return nil }
        let head = ResponseHead(etag: metadata["origin-etag"], lastModified: metadata["origin-last-modified"],
                                contentType: metadata["content-type"])
        let checking = ChecksummingSink(inner: makeSink(head), head: head)
        guard try await store.load(forKey: key, into: checking, maximumBytes: maximumBytes) else { return nil }
        guard checking.hexDigest == checksum else { throw ObjectStoreOriginalError.checksumMismatch(url) }
        return DiskCacheMetadata(url: url, etag: head.etag, lastModified: head.lastModified, contentType: head.contentType)
    }

    /// Puts the original of `url` into the store: from its file in the disk tier
    /// (streamed), or from memory.
    /// - Throws: the store's error; a read error of the file.
    func write(_ body: Original.Body, metadata: DiskCacheMetadata, of url: String) async throws {
        var fields = ["source-url": ObjectMetadata.encodedURL(url)]
        fields["origin-etag"] = metadata.etag.flatMap(ObjectMetadata.printable)
        fields["origin-last-modified"] = metadata.lastModified.flatMap(ObjectMetadata.printable)
        fields["content-type"] = metadata.contentType.flatMap(ObjectMetadata.printable)
        let key = keys.originalInStore(url)
        switch body {
        case let .stored(entry):
            fields["sha256"] = try await BlockingWork.run { try SHA256.hexDigest(of: entry.payload) }
            try await store.put(contentsOf: entry.payload, metadata: fields, forKey: key)
        case let .downloaded(writer):
            fields["sha256"] = try await BlockingWork.run { try SHA256.hexDigest(of: writer.payload) }
            try await store.put(contentsOf: writer.payload, metadata: fields, forKey: key)
        case let .memory(bytes):
            fields["sha256"] = SHA256.hex(SHA256.digest(bytes))
            try await store.put(StoredObject(bytes: bytes, metadata: fields), forKey: key)
        }
    }
}

/// Why a stored original was not used.
enum ObjectStoreOriginalError: Error, CustomStringConvertible {
    case checksumMismatch(String)

    var description: String {
        switch self {
        case let .checksumMismatch(url): "the object store's copy of \(url) does not match its checksum"
        }
    }
}

/// Passes a body on with the origin's head in place of the store's, hashing it on the way.
private final class ChecksummingSink: BodySink {
    private let inner: any BodySink
    private let head: ResponseHead
    private let hasher = Mutex(SHA256())

    init(inner: any BodySink, head: ResponseHead) {
        self.inner = inner
        self.head = head
    }

    var hexDigest: String { hasher.withLock { SHA256.hex($0.finish()) } }

    func begin(_ response: ResponseHead) throws {
        try inner.begin(head)
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        hasher.withLock { $0.update(bytes) }
        try inner.write(bytes)
    }
}
