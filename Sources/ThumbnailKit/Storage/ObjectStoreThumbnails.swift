import Logging

/// The thumbnails of an ``ObjectStore``: encoded files under the disk tier's
/// key layout, with their facts and a checksum in the metadata.
///
/// A thumbnail's key is ``CacheKeys/thumbnailInStore(_:)``, so that any process
/// can compute where one is. Its metadata:
///
/// | name | value |
/// |---|---|
/// | `source-url` | the original's URL (bytes outside printable ASCII, and `%`, as `%XX`) |
/// | `size` | the thumbnail box, `256` or `320x200` |
/// | `source-width`, `source-height`, `source-format` | the original's, as stored |
/// | `source-facts` | the original's header facts, hex (what reading it back answers with) |
/// | `origin-etag`, `origin-last-modified` | the origin's validators, when it sent them |
/// | `rendering` | ``CacheKeys/renderingVersion`` |
/// | `sha256` | the SHA-256 of the object's bytes, hex: checked on every read |
struct ObjectStoreThumbnails: Sendable {
    let store: any ObjectStore
    let keys: CacheKeys
    /// Limits for reading stored objects back (small, and without EXIF).
    let limits: DecodingLimits
    let logger: Logger

    /// What a read found: the thumbnail, and the encoded bytes and facts it was read from.
    struct Found: Sendable {
        let thumbnail: Thumbnail
        let bytes: [UInt8]
    }

    /// Whether the store holds a current, complete thumbnail for `key`: its
    /// metadata names this URL and rendering, and carries a checksum and the
    /// source's facts. A HEAD: no body is read.
    /// - Throws: the store's error.
    func contains(_ key: ThumbnailKey) async throws -> Bool {
        guard let metadata = try await store.metadata(forKey: keys.thumbnailInStore(key)) else { return false }
        return Self.describes(metadata, key) && Self.checksum(in: metadata) != nil && Self.source(in: metadata) != nil
    }

    /// The stored thumbnail for `key`, checked against its checksum and
    /// decoded; `nil` when absent, from another rendering, damaged, or when the
    /// store cannot be read (logged: the tiers behind then make it).
    func read(_ key: ThumbnailKey) async -> Found? {
        guard let (bytes, facts) = await encoded(key) else { return nil }
        let decoder = ThumbnailDecoder(size: key.size.storedFile, limits: limits, appliesOrientation: false)
        do {
            let decoded = try await BlockingWork.run { try decoder.decode(bytes) }
            var thumbnail = Thumbnail(width: decoded.width, height: decoded.height, pixels: decoded.pixels,
                                      source: facts.source, report: nil)
            thumbnail.originLastModified = facts.originLastModified
            return Found(thumbnail: thumbnail, bytes: bytes)
        } catch {
            logger.warning("ignoring a stored object that does not decode", metadata: ["key": "\(key)", "error": "\(error)"])
            return nil
        }
    }

    /// The stored encoded thumbnail for `key`, checked against its checksum but
    /// not decoded, with its facts; `nil` as for ``read(_:)``.
    func encoded(_ key: ThumbnailKey) async -> ([UInt8], EncodedThumbnailFacts)? {
        let object: StoredObject
        do {
            guard let found = try await store.object(forKey: keys.thumbnailInStore(key)) else { return nil }
            object = found
        } catch is CancellationError {
            return nil
        } catch {
            logger.warning("the object store could not be read", metadata: ["key": "\(key)", "error": "\(error)"])
            return nil
        }
        guard Self.describes(object.metadata, key), let source = Self.source(in: object.metadata),
              let format = ImageFormat(sniffing: object.bytes)
        else { return nil }
        guard Self.checksum(in: object.metadata) == SHA256.hex(SHA256.digest(object.bytes)) else {
            logger.warning("ignoring a stored object whose bytes do not match its checksum", metadata: ["key": "\(key)"])
            return nil
        }
        return (object.bytes, EncodedThumbnailFacts(tier: .objectStore, format: format, source: source,
                                                    originLastModified: object.metadata["origin-last-modified"]))
    }

    /// Stores an encoded thumbnail of `key`, made of an original with these facts.
    /// - Throws: the store's error.
    func write(_ encoded: [UInt8], source: ImageHeader, origin: DiskCacheMetadata, for key: ThumbnailKey) async throws {
        var metadata = [
            "source-url": ObjectMetadata.encodedURL(key.url),
            "size": key.size.description,
            "source-width": String(source.width),
            "source-height": String(source.height),
            "source-format": source.format.rawValue,
            "source-facts": SHA256.hex(source.cacheField),
            "rendering": String(CacheKeys.renderingVersion),
            "sha256": SHA256.hex(SHA256.digest(encoded)),
        ]
        metadata["origin-etag"] = origin.etag.flatMap(ObjectMetadata.printable)
        metadata["origin-last-modified"] = origin.lastModified.flatMap(ObjectMetadata.printable)
        try await store.put(StoredObject(bytes: encoded, metadata: metadata), forKey: keys.thumbnailInStore(key))
    }

    // MARK: - Metadata

    private static func describes(_ metadata: [String: String], _ key: ThumbnailKey) -> Bool {
        metadata["source-url"] == ObjectMetadata.encodedURL(key.url) && metadata["size"] == key.size.description
            && metadata["rendering"] == String(CacheKeys.renderingVersion)
    }

    private static func checksum(in metadata: [String: String]) -> String? {
        guard let value = metadata["sha256"], value.utf8.count == 64,
              value.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        return value
    }

    private static func source(in metadata: [String: String]) -> ImageHeader? {
        guard let hex = metadata["source-facts"], let bytes = Hex.bytes(hex) else { return nil }
        return ImageHeader(cacheField: bytes[...])
    }
}
