/// A store of objects that many machines share, such as an S3 bucket under a
/// prefix: the tier behind the local disk cache, which a fleet of warming
/// processes fills and list front ends read (``ThumbnailPipeline/Configuration/objectStore``).
///
/// Keys are relative paths (`thumbnails/3f/3f9a…`); metadata names are
/// lower-case ASCII and values printable ASCII, as S3's `x-amz-meta-*`
/// headers carry them. A `put` is atomic: a reader sees the old object, the
/// new one, or none, never part of one. Two writers of one key are harmless
/// as long as they write the same bytes, which the pipeline's deterministic
/// encoding gives, and a reader checks the checksum that travels in the metadata.
public protocol ObjectStore: Sendable {
    /// The object under `key`, whole; `nil` when there is none.
    /// - Throws: the store's error when it cannot be reached or refuses.
    func object(forKey key: String) async throws -> StoredObject?

    /// The metadata of the object under `key`, without its body; `nil` when there is none.
    /// - Throws: the store's error when it cannot be reached or refuses.
    func metadata(forKey key: String) async throws -> [String: String]?

    /// Stores `object` under `key`, replacing any object there.
    /// - Throws: the store's error when it cannot be reached or refuses.
    func put(_ object: StoredObject, forKey key: String) async throws

    /// Stores the bytes of `file` under `key`, read as they are sent: what an
    /// original takes, which must never be in memory whole.
    /// - Throws: the store's error; a read error of the file.
    func put(contentsOf file: FileRegion, metadata: [String: String], forKey key: String) async throws

    /// Streams the object under `key` into `sink` (``BodySink/begin(_:)``, then
    /// its bytes), at most `maximumBytes` of them; `false`, without touching
    /// `sink`, when there is no object. Its metadata is ``metadata(forKey:)``'s.
    /// - Throws: the store's error; what `sink` throws; a body over `maximumBytes`.
    func load(forKey key: String, into sink: any BodySink, maximumBytes: Int) async throws -> Bool
}

extension ObjectStore {
    /// Reads the file into memory and stores it with ``put(_:forKey:)``: for a
    /// store of small objects. A store of originals streams instead.
    public func put(contentsOf file: FileRegion, metadata: [String: String], forKey key: String) async throws {
        let bytes = try FileSystem.read(file.descriptor, count: file.length, at: file.offset, path: key)
        try await put(StoredObject(bytes: bytes, metadata: metadata), forKey: key)
    }

    /// Reads the whole object with ``object(forKey:)`` and hands it to `sink`:
    /// for a store of small objects. A store of originals streams instead.
    public func load(forKey key: String, into sink: any BodySink, maximumBytes: Int) async throws -> Bool {
        guard let object = try await object(forKey: key) else { return false }
        guard object.bytes.count <= maximumBytes else {
            throw DataLoadingError.tooLarge(key, bytes: object.bytes.count, limit: maximumBytes)
        }
        try sink.begin(ResponseHead())
        try object.bytes.withUnsafeBytes { try sink.write($0) }
        return true
    }
}

/// An object's bytes and its metadata.
public struct StoredObject: Sendable, Hashable {
    /// The object's body.
    public var bytes: [UInt8]
    /// User metadata, by lower-case ASCII name (S3's `x-amz-meta-*` without the prefix); values printable ASCII.
    public var metadata: [String: String]

    /// An object of `bytes` with `metadata`.
    public init(bytes: [UInt8], metadata: [String: String]) {
        self.bytes = bytes
        self.metadata = metadata
    }
}
