import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A disk-cache entry being written as its payload arrives (a download
/// streamed to disk): a temporary file beside the entry's place, hashed on
/// the way, that becomes the entry only on `commit()`. It is created in the
/// entry's shard folder, held open from the cache's own directory (see
/// `DiskCacheEntryFolder`), and renamed into that folder opened again at
/// commit: never through a symbolic link.
///
/// Until then no reader can see it, and a writer that is discarded, released
/// or killed leaves nothing a later run trusts: `discard()` and `deinit`
/// remove the file, and the cache's scan removes one whose process is gone.
/// Its payload can be read (decoded) through `payload` before committing.
public final class DiskCacheEntryWriter: Sendable {
    private struct State {
        var descriptor: Int32
        var hasher = SHA256()
        var payloadBytes = 0
        var headerWritten = false
        var isClosed = false
    }

    private let cache: DiskCache
    private let id: String
    private let path: String
    /// The entry's shard folder, open while this writer lives.
    private let folder: DiskCacheEntryFolder
    /// The temporary file's name in `folder`, and its path for messages.
    private let temporary: String
    private let temporaryPath: String
    private let metadataLength: Int
    /// The image the entry belongs to (see ``DiskCache/imageEvictions``).
    private let imageURL: String?
    private let state: Mutex<State>
    /// Marks the entry open in its cache (see ``EntriesInUse``) while this writer lives.
    private let use: EntriesInUse.Use

    init(cache: DiskCache, key: String, id: String, path: String, temporary: String, metadata: DiskCacheMetadata) throws {
        self.cache = cache
        self.id = id
        self.path = path
        self.temporary = temporary
        imageURL = metadata.url
        let fields = DiskCacheEntryFormat.fields(key: key, metadata: metadata)
        metadataLength = fields.count
        let descriptor: Int32
        do {
            folder = try cache.makeFolder(of: id)
            temporaryPath = folder.path(of: temporary)
            descriptor = try FileSystem.createExclusively(temporary, in: folder.descriptor, path: temporaryPath)
        } catch {
            throw DiskCacheError.writing(path, error)
        }
        var hasher = SHA256()
        fields.withUnsafeBytes { hasher.update($0) }
        state = Mutex(State(descriptor: descriptor, hasher: hasher))
        use = cache.entriesInUse.use(id)
        do {
            // The header is written for real once the payload's length and digest are known.
            let placeholder = [UInt8](repeating: 0, count: DiskCacheEntryFormat.headerSize) + fields
            try cache.makingRoom(for: placeholder.count, keeping: id) {
                try placeholder.withUnsafeBytes { try FileSystem.write($0, to: descriptor, at: 0, path: temporaryPath) }
            }
        } catch {
            discard()
            throw DiskCacheError.writing(path, error)
        }
    }

    deinit { discard() }

    /// Payload bytes written so far.
    package var payloadBytes: Int { state.withLock { $0.payloadBytes } }

    /// Appends payload bytes; on a full file system, evicts entries to make
    /// room as ``DiskCache/store(_:forKey:in:metadata:)`` does.
    /// - Throws: ``DiskCacheError/storageFull(_:_:)`` (a full disk even after
    ///   evicting, a file size limit), ``DiskCacheError/writeFailed(_:reason:)``,
    ///   ``DiskCacheError/entryTooLarge(bytes:limit:)`` once the entry could no
    ///   longer fit the cache's limit.
    package func append(_ bytes: UnsafeRawBufferPointer) throws {
        try state.withLock { state in
            precondition(!state.headerWritten && !state.isClosed, "append after finishing the entry")
            let end = DiskCacheEntryFormat.headerSize + metadataLength + state.payloadBytes
            guard end + bytes.count <= cache.sizeLimit else {
                throw DiskCacheError.entryTooLarge(bytes: end + bytes.count, limit: cache.sizeLimit)
            }
            do {
                // At an explicit offset, so that a write retried after eviction lands where the failed one began.
                try cache.makingRoom(for: bytes.count, keeping: id) {
                    try FileSystem.write(bytes, to: state.descriptor, at: end, path: temporaryPath)
                }
            } catch {
                throw DiskCacheError.writing(path, error)
            }
            state.hasher.update(bytes)
            state.payloadBytes += bytes.count
        }
    }

    /// The payload written so far, readable in place (to decode it before committing).
    package var payload: FileRegion {
        state.withLock { state in
            FileRegion(descriptor: state.descriptor, offset: DiskCacheEntryFormat.headerSize + metadataLength,
                       length: state.payloadBytes)
        }
    }

    /// Completes the file and renames it into place as the entry, evicting
    /// what the cache's limit requires.
    /// - Throws: ``DiskCacheError``; the temporary file is then gone.
    package func commit() throws {
        let onDisk = try state.withLock { state -> Int in
            precondition(!state.headerWritten && !state.isClosed, "commit twice, or after discard")
            state.headerWritten = true
            do {
                let header = DiskCacheEntryFormat.header(metadataLength: metadataLength, payloadLength: state.payloadBytes,
                                                         digest: state.hasher.finish())
                try header.withUnsafeBytes { try FileSystem.write($0, to: state.descriptor, at: 0, path: temporaryPath) }
                let onDisk = try FileSystem.finishWriting(state.descriptor, path: temporaryPath,
                                                          synchronize: cache.synchronizesWrites)
                state.isClosed = true
                guard close(state.descriptor) == 0 else { throw FileSystem.failure("cannot close", temporaryPath) }
                return onDisk
            } catch {
                if !state.isClosed { close(state.descriptor) }
                state.isClosed = true
                try? FileSystem.remove(temporary, in: folder.descriptor, path: temporaryPath)
                throw DiskCacheError.writing(path, error)
            }
        }
        try cache.commit(temporary, in: folder, occupying: onDisk, as: id, at: path, ofImage: imageURL)
    }

    /// Removes the temporary file; nothing of it remains. Safe to call more than once.
    package func discard() {
        state.withLock { state in
            guard !state.isClosed else { return }
            state.isClosed = true
            close(state.descriptor)
            try? FileSystem.remove(temporary, in: folder.descriptor, path: temporaryPath)
        }
    }
}

/// A range of an open file: an image inside a cache entry, to decode in place.
public struct FileRegion: Sendable, Hashable {
    /// The open file's descriptor; owned by the entry or writer the region came from, valid while that lives.
    public let descriptor: Int32
    /// Where the region starts, in bytes from the start of the file.
    public let offset: Int
    /// The region's size in bytes.
    public let length: Int

    package init(descriptor: Int32, offset: Int, length: Int) {
        self.descriptor = descriptor
        self.offset = offset
        self.length = length
    }
}
