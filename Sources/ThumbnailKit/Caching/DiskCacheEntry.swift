/// What the disk cache knows about an entry besides its bytes.
public struct DiskCacheMetadata: Sendable, Hashable {
    /// Where the bytes came from, when they were downloaded.
    public var url: String?
    /// The server's `ETag`, for conditional revalidation.
    public var etag: String?
    /// The server's `Last-Modified`, for conditional revalidation.
    public var lastModified: String?
    /// The media type the server named, if any.
    public var contentType: String?
    /// The header of the original an entry was made from: a stored
    /// thumbnail's source facts, so that reading it back answers with the
    /// original's size, format and alpha rather than its own.
    public var source: ImageHeader?
    /// When the entry was stored, in seconds since 1970 (set by the cache).
    public internal(set) var storedAt: Int64 = 0

    /// Metadata with the given facts; each defaults to `nil` (unknown).
    /// ``storedAt`` is left for the cache to set.
    /// - Parameters:
    ///   - url: Where the bytes came from.
    ///   - etag: The server's `ETag`.
    ///   - lastModified: The server's `Last-Modified`, as the server wrote it.
    ///   - contentType: The media type the server named.
    ///   - source: The header of the original a thumbnail was made from.
    public init(url: String? = nil, etag: String? = nil, lastModified: String? = nil, contentType: String? = nil,
                source: ImageHeader? = nil) {
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
        self.source = source
    }
}

/// A stored entry, read back whole and checked.
public struct DiskCacheEntry: Sendable {
    /// The key it was stored under.
    public let key: String
    /// The payload, exactly as stored.
    public let bytes: [UInt8]
    /// What was stored with it: origin URL, validators, media type, source header.
    public let metadata: DiskCacheMetadata
    /// When it was last read or written, in seconds since 1970 (the file's modification time).
    public let lastUsedAt: Int64
}

/// The on-disk layout of one entry:
///
///     0   "TNc1"                      magic and format version
///     4   UInt32 LE  metadata length  m
///     8   UInt64 LE  payload length   n
///     16  SHA-256 of metadata ‖ payload (32 bytes)
///     48  metadata: tag (UInt8), length (UInt32 LE), bytes; repeated
///     48+m payload
///
/// The digest covers everything after the header, so a torn, truncated or
/// bit-flipped file is recognised and never served.
enum DiskCacheEntryFormat {
    static let magic: [UInt8] = Array("TNc1".utf8)
    static let headerSize = 48

    private enum Tag: UInt8 {
        case key = 1, url, etag, lastModified, contentType, storedAt, source
    }

    static func encode(key: String, bytes: [UInt8], metadata: DiskCacheMetadata) -> [UInt8] {
        let fields = fields(key: key, metadata: metadata)
        var hasher = SHA256()
        fields.withUnsafeBytes { hasher.update($0) }
        bytes.withUnsafeBytes { hasher.update($0) }
        var file = header(metadataLength: fields.count, payloadLength: bytes.count, digest: hasher.finish())
        file.reserveCapacity(headerSize + fields.count + bytes.count)
        file += fields
        file += bytes
        return file
    }

    /// The metadata block: the key and every field present.
    static func fields(key: String, metadata: DiskCacheMetadata) -> [UInt8] {
        var fields: [UInt8] = []
        func add(_ tag: Tag, _ value: [UInt8]) {
            fields.append(tag.rawValue)
            appendLittleEndian(UInt32(value.count), to: &fields)
            fields += value
        }
        add(.key, Array(key.utf8))
        if let url = metadata.url { add(.url, Array(url.utf8)) }
        if let etag = metadata.etag { add(.etag, Array(etag.utf8)) }
        if let lastModified = metadata.lastModified { add(.lastModified, Array(lastModified.utf8)) }
        if let contentType = metadata.contentType { add(.contentType, Array(contentType.utf8)) }
        if let source = metadata.source { add(.source, source.cacheField) }
        var storedAt: [UInt8] = []
        appendLittleEndian(UInt64(bitPattern: metadata.storedAt), to: &storedAt)
        add(.storedAt, storedAt)
        return fields
    }

    /// The 48 bytes in front of the metadata block.
    static func header(metadataLength: Int, payloadLength: Int, digest: [UInt8]) -> [UInt8] {
        var header = magic
        appendLittleEndian(UInt32(metadataLength), to: &header)
        appendLittleEndian(UInt64(payloadLength), to: &header)
        return header + digest
    }

    /// The lengths and digest a header announces, or `nil` when it is not one.
    static func parseHeader(_ header: [UInt8]) -> (metadataLength: Int, payloadLength: Int, digest: ArraySlice<UInt8>)? {
        guard header.count >= headerSize, Array(header[0..<4]) == magic else { return nil }
        let metadataLength = Int(readLittleEndian(header, at: 4, bytes: 4))
        let payloadLength = readLittleEndian(header, at: 8, bytes: 8)
        guard payloadLength <= UInt64(Int.max - headerSize - metadataLength) else { return nil }
        return (metadataLength, Int(payloadLength), header[16..<48])
    }

    /// The key, metadata and payload range of the entry in `file`, or `nil`
    /// when anything about it is wrong.
    static func layout(of file: [UInt8]) -> (key: String, metadata: DiskCacheMetadata, payload: Range<Int>)? {
        guard let (metadataLength, payloadLength, digest) = parseHeader(file),
              file.count == headerSize + metadataLength + payloadLength
        else { return nil }
        var hasher = SHA256()
        file.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[headerSize...])) }
        guard hasher.finish()[...] == digest else { return nil }
        let metadataEnd = headerSize + metadataLength
        guard let (key, metadata) = parseFields(file[headerSize..<metadataEnd]) else { return nil }
        return (key, metadata, metadataEnd..<file.count)
    }

    /// The key and metadata in a metadata block, or `nil` when it is malformed or has no key.
    static func parseFields(_ block: ArraySlice<UInt8>) -> (key: String, metadata: DiskCacheMetadata)? {
        let fields = Array(block)
        var key: String?
        var metadata = DiskCacheMetadata()
        var offset = 0
        while offset < fields.count {
            guard fields.count - offset >= 5 else { return nil }
            let tag = fields[offset]
            let length = Int(readLittleEndian(fields, at: offset + 1, bytes: 4))
            let start = offset + 5
            guard length <= fields.count - start else { return nil }
            let text = String(decoding: fields[start..<start + length], as: UTF8.self)
            switch Tag(rawValue: tag) {
            case .key: key = text
            case .url: metadata.url = text
            case .etag: metadata.etag = text
            case .lastModified: metadata.lastModified = text
            case .contentType: metadata.contentType = text
            case .storedAt where length == 8:
                metadata.storedAt = Int64(bitPattern: readLittleEndian(fields, at: start, bytes: 8))
            case .source: metadata.source = ImageHeader(cacheField: fields[start..<start + length])
            default: break  // unknown fields of a later version are skipped
            }
            offset = start + length
        }
        guard let key else { return nil }
        return (key, metadata)
    }

    static func appendLittleEndian<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    private static func readLittleEndian(_ bytes: [UInt8], at offset: Int, bytes count: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in (0..<count).reversed() { value = value << 8 | UInt64(bytes[offset + index]) }
        return value
    }
}
