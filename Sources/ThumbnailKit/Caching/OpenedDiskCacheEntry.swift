#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A disk-cache entry opened and checked without reading it into memory: its
/// metadata, and its payload readable in place while this object lives (the
/// file stays open, so another process replacing or evicting the entry does
/// not change what is read).
public final class OpenedDiskCacheEntry: Sendable {
    /// The key it was stored under.
    public let key: String
    /// What was stored with it: origin URL, validators, media type, source header.
    public let metadata: DiskCacheMetadata
    /// The payload, in the open file.
    public let payload: FileRegion

    /// Marks the entry open in its cache (see ``EntriesInUse``).
    private let use: EntriesInUse.Use?

    /// Bytes hashed per read while checking.
    private static let chunkSize = 256 * 1024

    /// Takes `descriptor` (closing it on deinit) once its layout and checksum
    /// hold; `nil` when they do not (the caller then still owns it).
    init?(checking descriptor: Int32, path: String, use: EntriesInUse.Use? = nil) throws {
        self.use = use
        let headerSize = DiskCacheEntryFormat.headerSize
        let header = try FileSystem.read(descriptor, count: headerSize, at: 0, path: path)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw FileSystem.failure("cannot stat", path) }
        guard let (metadataLength, payloadLength, digest) = DiskCacheEntryFormat.parseHeader(header),
              Int(status.st_size) == headerSize + metadataLength + payloadLength
        else { return nil }
        let fields = try FileSystem.read(descriptor, count: metadataLength, at: headerSize, path: path)
        var hasher = SHA256()
        fields.withUnsafeBytes { hasher.update($0) }
        var offset = headerSize + metadataLength
        let end = offset + payloadLength
        while offset < end {
            let chunk = try FileSystem.read(descriptor, count: min(Self.chunkSize, end - offset), at: offset, path: path)
            guard !chunk.isEmpty else { return nil }
            chunk.withUnsafeBytes { hasher.update($0) }
            offset += chunk.count
        }
        guard hasher.finish()[...] == digest, let (key, metadata) = DiskCacheEntryFormat.parseFields(fields[...]) else {
            return nil
        }
        self.key = key
        self.metadata = metadata
        payload = FileRegion(descriptor: descriptor, offset: headerSize + metadataLength, length: payloadLength)
    }

    deinit { close(payload.descriptor) }
}
