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
    /// When the entry was stored, in seconds since 1970 (set by the cache).
    public internal(set) var storedAt: Int64 = 0

    public init(url: String? = nil, etag: String? = nil, lastModified: String? = nil, contentType: String? = nil) {
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
    }
}

/// A stored entry, read back whole and checked.
public struct DiskCacheEntry: Sendable {
    /// The key it was stored under.
    public let key: String
    /// The payload, exactly as stored.
    public let bytes: [UInt8]
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
        case key = 1, url, etag, lastModified, contentType, storedAt
    }

    static func encode(key: String, bytes: [UInt8], metadata: DiskCacheMetadata) -> [UInt8] {
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
        var storedAt: [UInt8] = []
        appendLittleEndian(UInt64(bitPattern: metadata.storedAt), to: &storedAt)
        add(.storedAt, storedAt)

        var hasher = SHA256()
        fields.withUnsafeBytes { hasher.update($0) }
        bytes.withUnsafeBytes { hasher.update($0) }
        var file = magic
        file.reserveCapacity(headerSize + fields.count + bytes.count)
        appendLittleEndian(UInt32(fields.count), to: &file)
        appendLittleEndian(UInt64(bytes.count), to: &file)
        file += hasher.finish()
        file += fields
        file += bytes
        return file
    }

    /// The entry in `file`, or `nil` when anything about it is wrong.
    static func decode(_ file: [UInt8], lastUsedAt: Int64) -> DiskCacheEntry? {
        guard file.count >= headerSize, Array(file[0..<4]) == magic else { return nil }
        let metadataLength = Int(readLittleEndian(file, at: 4, bytes: 4))
        let payloadLength = readLittleEndian(file, at: 8, bytes: 8)
        guard payloadLength <= UInt64(Int.max - headerSize - metadataLength),
              file.count == headerSize + metadataLength + Int(payloadLength)
        else { return nil }
        var hasher = SHA256()
        file.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[headerSize...])) }
        guard hasher.finish()[...] == file[16..<48] else { return nil }

        var key: String?
        var metadata = DiskCacheMetadata()
        var offset = headerSize
        let metadataEnd = headerSize + metadataLength
        while offset < metadataEnd {
            guard metadataEnd - offset >= 5 else { return nil }
            let tag = file[offset]
            let length = Int(readLittleEndian(file, at: offset + 1, bytes: 4))
            let start = offset + 5
            guard length <= metadataEnd - start else { return nil }
            let value = file[start..<start + length]
            let text = String(decoding: value, as: UTF8.self)
            switch Tag(rawValue: tag) {
            case .key: key = text
            case .url: metadata.url = text
            case .etag: metadata.etag = text
            case .lastModified: metadata.lastModified = text
            case .contentType: metadata.contentType = text
            case .storedAt where length == 8:
                metadata.storedAt = Int64(bitPattern: readLittleEndian(file, at: start, bytes: 8))
            default: break  // unknown fields of a later version are skipped
            }
            offset = start + length
        }
        guard let key else { return nil }
        return DiskCacheEntry(key: key, bytes: Array(file[metadataEnd...]), metadata: metadata, lastUsedAt: lastUsedAt)
    }

    private static func appendLittleEndian<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    private static func readLittleEndian(_ bytes: [UInt8], at offset: Int, bytes count: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in (0..<count).reversed() { value = value << 8 | UInt64(bytes[offset + index]) }
        return value
    }
}
