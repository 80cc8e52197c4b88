import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A size-limited cache of files that survives restarts, crashes and several
/// processes using the same directory at once (`warm` in one terminal while
/// `browse` runs in another).
///
/// - Entries live in two namespaces, ``Namespace/originals`` (downloaded
///   bytes) and ``Namespace/thumbnails`` (encoded thumbnails), in files named
///   by the SHA-256 of their key, so no user text reaches a path.
/// - A write goes to a temporary file in the entry's directory and is renamed
///   into place: a reader sees the old entry or the new one, never part of one.
/// - Every write, rename, read and touch of an entry goes through the cache's
///   own open folders (see `DiskCacheEntryFolder`): where a symbolic link
///   (or a file) stands in place of a namespace or shard folder, a write fails
///   with ``DiskCacheError/notAFolder(_:symbolicLink:)`` and a read is a miss;
///   nothing outside the cache directory is written, read or touched.
/// - Every entry carries a SHA-256 of its contents; a torn, truncated or
///   altered file is removed and reported as a miss, never served.
/// - The size limit counts the bytes the files occupy on disk, and holds
///   after every write: least recently used entries (by file modification
///   time, which every read refreshes) are removed before a new one is
///   renamed into place. An entry larger than the limit is refused.
/// - A write that finds the file system full (`ENOSPC`, `EDQUOT`) evicts
///   least recently used entries, never one open in this process, and tries
///   again (`writeAttemptsWhenFull`); then, or at once past the file size
///   limit (`EFBIG`), it fails with ``DiskCacheError/storageFull(_:_:)`` and
///   leaves nothing behind. A journal without room never fails anything
///   (see `DiskCacheIndex`): opening, counting, verifying and clearing work
///   on a disk without a free byte.
/// - Changes to the index happen under an exclusive `flock` on `<dir>/lock`
///   and are journalled for the other processes (see `DiskCacheIndex`);
///   reads take no lock. At open the index is rebuilt from the directory
///   itself, so what a killed process left behind is reconciled.
///
/// Calls block on file I/O: use them off latency-sensitive threads.
public final class DiskCache: Sendable {
    /// The two kinds of entries.
    public enum Namespace: String, Sendable, CaseIterable {
        /// Downloaded originals, keyed by URL.
        case originals
        /// Encoded thumbnails, keyed by URL + size + options.
        case thumbnails
    }

    /// Entries and bytes per namespace.
    public struct Statistics: Sendable, Hashable {
        /// Entries in each namespace; every namespace is present, with 0 when it is empty.
        public var entries: [Namespace: Int] = [:]
        /// Bytes the entries of each namespace occupy on disk (file system blocks, not payload length).
        public var bytes: [Namespace: Int] = [:]
        /// Bytes all entries occupy on disk: the sum of ``bytes``, the figure ``sizeLimit`` bounds.
        public var totalBytes: Int { bytes.values.reduce(0, +) }
        /// Entries in all namespaces: the sum of ``entries``.
        public var totalEntries: Int { entries.values.reduce(0, +) }
        /// The configured limit on ``totalBytes``.
        public var sizeLimit: Int
        /// Symbolic links the last look at the directory (opening the cache)
        /// found in the namespaces' folders: not followed, not counted.
        public var symbolicLinks: [String] = []
    }

    /// What ``removeAll()`` removed, and what it left.
    public struct Removal: Sendable, Hashable {
        /// Entries removed.
        public var entries = 0
        /// The bytes they occupied on disk.
        public var bytes = 0
        /// Paths in the namespaces' folders that are not entries: left in place.
        public var foreign: [String] = []
        /// Symbolic links in the namespaces' folders: left in place, not followed.
        public var symbolicLinks: [String] = []
    }

    /// What ``verify(repair:)`` found.
    package struct VerificationReport: Sendable {
        /// Entries read and checked.
        package var checked = 0
        /// Files that failed their check, with the reason.
        package var damaged: [(path: String, reason: String)] = []
        /// Whether the damaged files were removed.
        package var repaired = false
        /// Symbolic links in the namespaces' folders: not followed, not checked.
        package var symbolicLinks: [String] = []
    }

    /// The cache directory.
    public let directory: String
    /// The most bytes the entries may occupy on disk together.
    public let sizeLimit: Int
    /// Whether each entry is fsynced before it is renamed into place. Off by
    /// default: a crash can then leave a renamed entry without its data, which
    /// the checksum catches, so only durability is traded, never correctness.
    public let synchronizesWrites: Bool

    private let fileLock: FileLock
    /// The cache directory, open: every walk and removal goes from it, never through a symbolic link inside.
    private let directoryDescriptor: Int32
    /// The symbolic links the last scan of the directory found.
    private let linksAtLastScan = Mutex<[String]>([])
    private let index: Mutex<DiskCacheIndex>
    private let evictedByThisProcess = Mutex(Evictions())
    /// Entries open in this process, which eviction to make room passes over.
    let entriesInUse = EntriesInUse()
    private let imageTracker = ImageEvictionTracker()
    /// Numbers ``checkWritable()``'s probe files.
    private let probes = Atomic(0)

    /// Entries this process removed to stay within the size limit.
    package struct Evictions: Sendable, Hashable {
        package var entries = 0
        package var bytes = 0
    }

    /// Images this process stored or found (an entry written with a URL in its
    /// metadata, or one ``indexHoldsEntry(forKey:in:ofImage:)`` found) of which
    /// it then evicted the original or a thumbnail to make room: they are no
    /// longer cached, though this process cached them.
    package struct ImageEvictions: Sendable, Hashable {
        /// Images with an entry evicted, each counted once.
        package var images = 0
        /// The bytes on disk of every entry of those images this process
        /// stored or found, evicted or not: about what the cache needs to hold them all.
        package var bytesNeeded = 0

        package init(images: Int = 0, bytesNeeded: Int = 0) {
            self.images = images
            self.bytesNeeded = bytesNeeded
        }
    }

    /// Opens (creating if needed) the cache at `directory`.
    /// - Parameters:
    ///   - directory: the cache's folder: its own, created if missing (``CacheLocation`` names the default one).
    ///   - sizeLimit: bytes on disk for all entries; default 1 GiB.
    ///   - synchronizesWrites: fsync each entry before it becomes visible; default `false`.
    /// - Throws: ``DiskCacheError/unusableDirectory(_:reason:)`` when the directory cannot be created or used.
    public init(directory: String, sizeLimit: Int = 1 << 30, synchronizesWrites: Bool = false) throws {
        precondition(sizeLimit >= 0, "sizeLimit must not be negative")
        self.directory = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        self.sizeLimit = sizeLimit
        self.synchronizesWrites = synchronizesWrites
        do {
            for namespace in Namespace.allCases {
                try FileSystem.createDirectories("\(self.directory)/\(namespace.rawValue)")
            }
            directoryDescriptor = open(self.directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard directoryDescriptor >= 0 else { throw FileSystem.failure("cannot open", self.directory) }
        } catch {
            throw DiskCacheError.unusableDirectory(directory, reason: "\(error)")
        }
        do {
            fileLock = try FileLock(name: "lock", in: directoryDescriptor, path: "\(self.directory)/lock")
        } catch {
            close(directoryDescriptor)
            throw DiskCacheError.unusableDirectory(directory, reason: "\(error)")
        }
        index = Mutex(DiskCacheIndex(directory: directoryDescriptor, path: self.directory))
        try changeIndex(rebuilding: true) { _ in }
    }

    deinit { close(directoryDescriptor) }

    /// The entry for `key`, or `nil` when there is none (or it was damaged and
    /// has just been removed, or a symbolic link stands in its place or its
    /// folder's). A hit marks the entry most recently used.
    public func entry(forKey key: String, in namespace: Namespace) throws -> DiskCacheEntry? {
        try withEntry(forKey: key, in: namespace) { metadata, payload, lastUsedAt in
            DiskCacheEntry(key: key, bytes: Array(payload), metadata: metadata, lastUsedAt: lastUsedAt)
        }
    }

    /// Reads the entry for `key` as ``entry(forKey:in:)`` does, and hands
    /// `body` its metadata and its payload in place, in the one buffer the
    /// file was read into (valid only during the call), with when it was
    /// last used; `nil` when there is no entry.
    package func withEntry<Result>(
        forKey key: String, in namespace: Namespace,
        _ body: (DiskCacheMetadata, UnsafeRawBufferPointer, Int64) throws -> Result
    ) throws -> Result? {
        let (id, path) = location(of: key, in: namespace)
        let file: [UInt8]
        guard let descriptor = try openFile(of: id, path: path) else { return nil }
        defer { close(descriptor) }
        do {
            file = try FileSystem.read(descriptor, from: 0, upTo: nil, path: path)
        } catch {
            throw DiskCacheError.readFailed(path, reason: "\(error)")
        }
        let now = FileSystem.now()
        guard let layout = DiskCacheEntryFormat.layout(of: file), layout.key == key else {
            try discardDamaged(id: id)
            return nil
        }
        FileSystem.touch(descriptor)
        index.withLock { $0.markUsed(id, at: now) }
        return try file.withUnsafeBytes { raw in
            try body(layout.metadata, UnsafeRawBufferPointer(rebasing: raw[layout.payload]), now / 1_000_000_000)
        }
    }

    /// Whether an entry for `key` is on disk, without reading it (reading
    /// verifies it; an entry found damaged then is removed and reported as a
    /// miss). One `lstat` in its shard folder, which is opened without
    /// following a symbolic link.
    package func containsEntry(forKey key: String, in namespace: Namespace) -> Bool {
        fileStatus(of: location(of: key, in: namespace).id) != nil
    }

    /// Whether this process's index of the cache holds an entry for `key`:
    /// the entries the scan at opening found (one `lstat` each), with every
    /// change made through this process since, and other processes' changes
    /// as their journal said at this process's last change. No file is
    /// looked at: what a warm-up asks of every key of a feed. An entry found
    /// is followed in ``imageEvictions`` as one of the image whose original's key is `originalKey`.
    func indexHoldsEntry(forKey key: String, in namespace: Namespace, ofImage originalKey: String) -> Bool {
        let id = location(of: key, in: namespace).id
        let originalID = location(of: originalKey, in: .originals).id
        // Under the index's lock, which eviction holds: an entry is never followed once gone.
        return index.withLock { index in
            guard let record = index.records[id] else { return false }
            imageTracker.follow(id, ofOriginal: originalID, bytes: record.bytes)
            return true
        }
    }

    /// What this process has evicted so far, to respect ``sizeLimit``.
    package var evictions: Evictions { evictedByThisProcess.withLock { $0 } }

    /// The images this process cached and then evicted itself, to make room for others.
    package var imageEvictions: ImageEvictions { imageTracker.evictions }

    /// Stores `bytes` under `key`, replacing any earlier entry, removing least
    /// recently used entries first if the limit requires it, or if the file
    /// system is out of room (see `writeAttemptsWhenFull`).
    /// - Throws: ``DiskCacheError/entryTooLarge(bytes:limit:)`` (nothing is
    ///   stored), ``DiskCacheError/storageFull(_:_:)`` when the file system
    ///   has no room for it even after evicting, ``DiskCacheError/notAFolder(_:symbolicLink:)``
    ///   when a symbolic link or a file stands where its namespace or shard folder
    ///   should be, ``DiskCacheError/writeFailed(_:reason:)`` when the write fails
    ///   otherwise (the cache stays as it was, less any entries already evicted to make room).
    public func store(_ bytes: [UInt8], forKey key: String, in namespace: Namespace,
                      metadata: DiskCacheMetadata = DiskCacheMetadata()) throws {
        let (id, path) = location(of: key, in: namespace)
        var stamped = metadata
        stamped.storedAt = FileSystem.now() / 1_000_000_000
        let file = DiskCacheEntryFormat.encode(key: key, bytes: bytes, metadata: stamped)
        guard file.count <= sizeLimit else { throw DiskCacheError.entryTooLarge(bytes: file.count, limit: sizeLimit) }

        let temporary = Self.temporaryName()
        let (folder, onDisk): (DiskCacheEntryFolder, Int)
        do {
            (folder, onDisk) = try makingRoom(for: file.count, keeping: id) {
                let folder = try makeFolder(of: id)
                return (folder, try FileSystem.create(temporary, in: folder.descriptor, path: folder.path(of: temporary),
                                                      with: file, synchronize: synchronizesWrites))
            }
        } catch {
            throw DiskCacheError.writing(path, error)
        }
        try commit(temporary, in: folder, occupying: onDisk, as: id, at: path, ofImage: metadata.url)
    }

    /// Starts an entry for `key` whose payload arrives in pieces (a download):
    /// it is written to a temporary file, hashed on the way, and becomes the
    /// entry only when committed. Its writes make room as ``store(_:forKey:in:metadata:)``'s do.
    /// - Throws: ``DiskCacheError/storageFull(_:_:)``, ``DiskCacheError/writeFailed(_:reason:)``,
    ///   ``DiskCacheError/notAFolder(_:symbolicLink:)``.
    package func makeEntryWriter(forKey key: String, in namespace: Namespace,
                                metadata: DiskCacheMetadata = DiskCacheMetadata()) throws -> DiskCacheEntryWriter {
        let (id, path) = location(of: key, in: namespace)
        var stamped = metadata
        stamped.storedAt = FileSystem.now() / 1_000_000_000
        return try DiskCacheEntryWriter(cache: self, key: key, id: id, path: path,
                                        temporary: Self.temporaryName(), metadata: stamped)
    }

    /// The entry for `key`, opened and checked end to end without reading it
    /// into memory, or `nil` when there is none (or it was damaged and has just
    /// been removed). A hit marks the entry most recently used. Its payload
    /// stays readable through the returned file while it is open, whatever
    /// other processes do to the cache.
    public func openEntry(forKey key: String, in namespace: Namespace) throws -> OpenedDiskCacheEntry? {
        let (id, path) = location(of: key, in: namespace)
        guard let descriptor = try openFile(of: id, path: path) else { return nil }
        let entry: OpenedDiskCacheEntry?
        do {
            entry = try OpenedDiskCacheEntry(checking: descriptor, path: path, use: entriesInUse.use(id))
        } catch {
            close(descriptor)
            throw DiskCacheError.readFailed(path, reason: "\(error)")
        }
        guard let entry else {
            close(descriptor)
            try discardDamaged(id: id)
            return nil
        }
        guard entry.key == key else {
            try discardDamaged(id: id)
            return nil
        }
        FileSystem.touch(descriptor)
        index.withLock { $0.markUsed(id, at: FileSystem.now()) }
        return entry
    }

    /// Renames a finished temporary file of `folder` into place as the entry
    /// `id`, after evicting what the limit requires; the temporary file is
    /// removed on failure. The entry's folder is opened again for the rename:
    /// one replaced by a symbolic link since the temporary file was made (a
    /// download takes a while) refuses the entry, never receives it. An entry
    /// of the image at `url` is followed in ``imageEvictions``.
    func commit(_ temporary: String, in folder: DiskCacheEntryFolder, occupying onDisk: Int, as id: String,
                at path: String, ofImage url: String?) throws {
        let name = Self.parts(of: id).hex
        guard onDisk <= sizeLimit else {
            try? FileSystem.remove(temporary, in: folder.descriptor, path: folder.path(of: temporary))
            throw DiskCacheError.entryTooLarge(bytes: onDisk, limit: sizeLimit)
        }
        do {
            try changeIndex { index in
                try evict(from: &index, keeping: [id]) { $0.totalBytes - ($0.records[id]?.bytes ?? 0) + onDisk <= sizeLimit }
                let destination = try makeFolder(of: id)
                try FileSystem.move(temporary, in: folder.descriptor, to: name, in: destination.descriptor,
                                    path: folder.path(of: temporary))
                do {
                    try index.add(id, bytes: onDisk, lastUsed: FileSystem.now())
                } catch {
                    // Without its journal line the other processes would not count it.
                    try? FileSystem.remove(name, in: destination.descriptor, path: path)
                    try? index.remove(id)
                    throw error
                }
                try index.compactIfNeeded()
                // Before the lock is let go, so that no eviction can come between.
                if let url { imageTracker.follow(id, ofOriginal: location(of: url, in: .originals).id, bytes: onDisk) }
            }
        } catch {
            try? FileSystem.remove(temporary, in: folder.descriptor, path: folder.path(of: temporary))
            throw DiskCacheError.writing(path, error)
        }
    }

    /// How often a write is tried when the file system is out of room
    /// (`ENOSPC`, `EDQUOT`): before each retry, least recently used entries
    /// worth at least the bytes being written are evicted. A write past the
    /// file size limit (`EFBIG`) is not retried: eviction cannot help it.
    package static let writeAttemptsWhenFull = 3

    /// Runs `write`, which must be safe to repeat; when the file system is out
    /// of room, evicts entries worth `bytes` (never `id`, nor an entry open in
    /// this process) and runs it again, up to ``writeAttemptsWhenFull`` times
    /// in all, or until nothing is left to evict.
    func makingRoom<Result>(for bytes: Int, keeping id: String, _ write: () throws -> Result) throws -> Result {
        var attempt = 1
        while true {
            do {
                return try write()
            } catch where StorageShortage(error)?.isRelievedByEviction == true && attempt < Self.writeAttemptsWhenFull {
                attempt += 1
                let freed = try changeIndex { index in
                    let target = index.totalBytes - bytes
                    return try evict(from: &index, keeping: entriesInUse.ids.union([id])) { $0.totalBytes <= target }
                }
                guard freed > 0 else { throw error }
            }
        }
    }

    /// A new temporary name for the entry's folder: `.tmp-<pid>-<random>`, so
    /// that a scan can tell whether its writer is gone.
    private static func temporaryName() -> String {
        ".tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    }

    /// The shard folder of the entry `id`, open, made first if it is missing.
    /// - Throws: ``DiskCacheError/notAFolder(_:symbolicLink:)`` where a link or a file stands in its place.
    func makeFolder(of id: String) throws -> DiskCacheEntryFolder {
        let (namespace, hex) = Self.parts(of: id)
        return try DiskCacheEntryFolder.make(String(hex.prefix(2)), of: namespace, in: directoryDescriptor, at: directory)
    }

    /// The shard folder of the entry `id`, open; `nil` when it is missing, or
    /// when a symbolic link or a file stands in its place (its entries are then
    /// not the cache's: a miss, never followed).
    private func existingFolder(of id: String) throws -> DiskCacheEntryFolder? {
        let (namespace, hex) = Self.parts(of: id)
        do {
            return try DiskCacheEntryFolder.open(String(hex.prefix(2)), of: namespace, in: directoryDescriptor, at: directory)
        } catch DiskCacheError.notAFolder {
            return nil
        }
    }

    /// The file of the entry `id`, open for reading through the cache's own
    /// folders; `nil` when it is missing, or when it or its folder is a symbolic link.
    private func openFile(of id: String, path: String) throws -> Int32? {
        do {
            guard let folder = try existingFolder(of: id) else { return nil }
            if let descriptor = FileSystem.openFile(Self.parts(of: id).hex, in: folder.descriptor) { return descriptor }
            if errno == ENOENT || errno == ELOOP { return nil }
            throw FileSystem.failure("cannot open", path)
        } catch {
            throw DiskCacheError.readFailed(path, reason: "\(error)")
        }
    }

    /// What the file of the entry `id` is, by `lstat` in its shard folder;
    /// `nil` when it is missing, not a regular file, or behind a symbolic link.
    private func fileStatus(of id: String) -> stat? {
        guard let folder = try? existingFolder(of: id),
              let status = FileSystem.status(Self.parts(of: id).hex, in: folder.descriptor),
              FileSystem.isRegularFile(status)
        else { return nil }
        return status
    }

    /// Removes the entry for `key`, if any.
    public func removeEntry(forKey key: String, in namespace: Namespace) throws {
        let id = location(of: key, in: namespace).id
        try changeIndex { index in
            try removeFile(of: id)
            try index.remove(id)
            imageTracker.removed(id)
        }
    }

    /// Removes every entry, the files first (on a full disk they make the
    /// room the journal then needs). Whatever else is in the namespaces'
    /// folders (a folder named like an entry, a file the cache did not
    /// write, a symbolic link, never followed) stays where it is and is reported.
    @discardableResult
    public func removeAll() throws -> Removal {
        try changeIndex { index in
            var removal = Removal()
            try walk.forEach { found in
                switch found {
                case let .entry(entry):
                    try FileSystem.remove(entry.name, in: entry.folder, path: entry.path)
                    removal.entries += 1
                    removal.bytes += FileSystem.onDiskSize(entry.status)
                case let .temporary(name, folder, path):
                    if Self.writerIsGone(temporaryName: name) { try FileSystem.remove(name, in: folder, path: path) }
                case let .symbolicLink(path):
                    removal.symbolicLinks.append(path)
                case let .foreign(path):
                    removal.foreign.append(path)
                }
            }
            try index.replaceAll(with: [:])
            return removal
        }
    }

    /// Entries and bytes per namespace, as all processes have left them.
    public func statistics() throws -> Statistics {
        try changeIndex { index in
            var statistics = Statistics(sizeLimit: sizeLimit, symbolicLinks: linksAtLastScan.withLock { $0 })
            for namespace in Namespace.allCases {
                statistics.entries[namespace] = 0
                statistics.bytes[namespace] = 0
            }
            for (id, record) in index.records {
                guard let namespace = Self.namespace(of: id) else { continue }
                statistics.entries[namespace, default: 0] += 1
                statistics.bytes[namespace, default: 0] += record.bytes
            }
            return statistics
        }
    }

    /// Throws unless a file can be made in the cache directory now: a probe
    /// file created (no data) and removed through the cache's open directory,
    /// which fails once the directory is deleted or its file system is read-only.
    /// For a server's readiness check; the probe's name is unique to the process and call.
    /// - Throws: ``DiskCacheError/unusableDirectory(_:reason:)``.
    package func checkWritable() throws {
        let name = ".probe-\(getpid())-\(probes.add(1, ordering: .relaxed).newValue)"
        let probe = openat(directoryDescriptor, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard probe >= 0 else {
            throw DiskCacheError.unusableDirectory(directory, reason: String(cString: strerror(errno)))
        }
        close(probe)
        unlinkat(directoryDescriptor, name, 0)
    }

    /// Reads every entry file in the directory and checks it, a piece at a
    /// time (an original is never held whole); with `repair`, removes the
    /// damaged ones. Symbolic links are reported, never followed.
    package func verify(repair: Bool) throws -> VerificationReport {
        var report = VerificationReport()
        var damagedIDs: [String] = []
        try walk.forEach { found in
            switch found {
            case let .entry(entry):
                guard let descriptor = FileSystem.openFile(entry.name, in: entry.folder) else {
                    if errno == ELOOP { report.symbolicLinks.append(entry.path) }  // swapped for a link since the listing
                    return  // else removed meanwhile
                }
                report.checked += 1
                let reason: String
                if let opened = try? OpenedDiskCacheEntry(checking: descriptor, path: entry.path) {
                    guard location(of: opened.key, in: entry.namespace).id != entry.id else { return }
                    reason = "holds the entry for another key"
                } else {
                    close(descriptor)
                    reason = "checksum or layout does not match"
                }
                report.damaged.append((entry.path, reason))
                damagedIDs.append(entry.id)
            case let .symbolicLink(path):
                report.symbolicLinks.append(path)
            case .temporary, .foreign:
                break
            }
        }
        if repair {
            for id in damagedIDs { try discardDamaged(id: id) }
            report.repaired = true
        }
        return report
    }

    // MARK: - Internals

    /// Runs `body` on the index holding both the in-process mutex and the
    /// directory's file lock, after catching up with other processes. With
    /// `rebuilding` (at open), or when the journal is missing, the index is
    /// first rebuilt from the files themselves.
    private func changeIndex<Result: Sendable>(rebuilding: Bool = false,
                                               _ body: (inout DiskCacheIndex) throws -> Result) throws -> Result {
        try index.withLock { index in
            try fileLock.withLock {
                if rebuilding {
                    try index.replaceAll(with: scanDirectory())
                } else {
                    do {
                        try index.synchronize()
                    } catch is DiskCacheIndex.Missing {
                        try index.replaceAll(with: scanDirectory())
                    }
                }
                return try body(&index)
            }
        }
    }

    /// Removes least recently used entries other than `kept` until `isEnough`
    /// holds or none is left, and returns the bytes removed. Before removing a
    /// candidate it checks the file's modification time, which another
    /// process's read may have refreshed.
    @discardableResult
    private func evict(from index: inout DiskCacheIndex, keeping kept: Set<String>,
                       until isEnough: (DiskCacheIndex) -> Bool) throws -> Int {
        var freed = 0
        while !isEnough(index), let candidate = index.oldest(excluding: kept) {
            if let status = fileStatus(of: candidate.id) {
                let modified = FileSystem.modificationTime(status)
                if modified > candidate.record.lastUsed {
                    index.markUsed(candidate.id, at: modified)
                    continue
                }
            }
            try removeFile(of: candidate.id)
            try index.remove(candidate.id)
            imageTracker.evicted(candidate.id)
            freed += candidate.record.bytes
            evictedByThisProcess.withLock {
                $0.entries += 1
                $0.bytes += candidate.record.bytes
            }
        }
        return freed
    }

    private func discardDamaged(id: String) throws {
        try changeIndex { index in
            try removeFile(of: id)
            try index.remove(id)
            imageTracker.removed(id)
        }
    }

    /// The namespace folders, walked from the open cache directory.
    private var walk: CacheDirectoryWalk { CacheDirectoryWalk(directory: directoryDescriptor, path: directory) }

    /// Removes the file of the entry `id` through the cache's own folders: a
    /// namespace or shard folder that is a symbolic link (or gone) is not
    /// entered, so nothing outside the cache is removed.
    private func removeFile(of id: String) throws {
        guard let folder = try existingFolder(of: id) else { return }
        try FileSystem.remove(Self.parts(of: id).hex, in: folder.descriptor, path: filePath(of: id))
    }

    /// Every entry file in the namespace folders, with its size and
    /// modification time; removes temporary files whose writer is gone, and
    /// notes the symbolic links it passed over (see ``Statistics/symbolicLinks``).
    private func scanDirectory() throws -> [String: DiskCacheIndex.Record] {
        var entries: [String: DiskCacheIndex.Record] = [:]
        var links: [String] = []
        try walk.forEach { found in
            switch found {
            case let .entry(entry):
                entries[entry.id] = DiskCacheIndex.Record(bytes: FileSystem.onDiskSize(entry.status),
                                                          lastUsed: FileSystem.modificationTime(entry.status))
            case let .temporary(name, folder, path):
                if Self.writerIsGone(temporaryName: name) { try FileSystem.remove(name, in: folder, path: path) }
            case let .symbolicLink(path):
                links.append(path)
            case .foreign:
                break
            }
        }
        linksAtLastScan.withLock { $0 = links }
        return entries
    }

    /// `.tmp-<pid>-<random>`: the writer is gone when no process has that pid.
    private static func writerIsGone(temporaryName: String) -> Bool {
        let parts = temporaryName.split(separator: "-")
        guard parts.count == 3, let pid = pid_t(parts[1]) else { return true }
        return pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH
    }

    private func location(of key: String, in namespace: Namespace) -> (id: String, path: String) {
        let id = "\(namespace.rawValue)/\(SHA256.hexDigest(of: key))"
        return (id, filePath(of: id))
    }

    /// `<dir>/<namespace>/<first two hex digits>/<hex>`.
    private func filePath(of id: String) -> String {
        let (namespace, hex) = Self.parts(of: id)
        return "\(directory)/\(namespace)/\(hex.prefix(2))/\(hex)"
    }

    /// The namespace and the hex digest of the entry `id`.
    private static func parts(of id: String) -> (namespace: String, hex: String) {
        // By its UTF-8 bytes: splitting into Characters cost a fifth of a fully cached warm's CPU.
        guard let slash = id.utf8.firstIndex(of: UInt8(ascii: "/")) else { return ("", id) }
        return (String(id[..<slash]), String(id[id.utf8.index(after: slash)...]))
    }

    private static func namespace(of id: String) -> Namespace? {
        Namespace(rawValue: parts(of: id).namespace)
    }
}

/// Why the disk cache could not do what was asked.
public enum DiskCacheError: Error, Sendable, CustomStringConvertible {
    /// The directory could not be created, opened or locked.
    case unusableDirectory(String, reason: String)
    /// The file system had no room for the entry, even after evicting what
    /// could be evicted: nothing was stored.
    case storageFull(String, StorageShortage)
    /// Writing an entry failed for another reason (permissions, an I/O error).
    case writeFailed(String, reason: String)
    /// Reading an entry failed for a reason other than its absence.
    case readFailed(String, reason: String)
    /// The entry alone is larger than the cache's size limit; it was not stored.
    case entryTooLarge(bytes: Int, limit: Int)
    /// A symbolic link (or, without `symbolicLink`, a file) stands where a
    /// namespace or shard folder of the cache should be: the cache never
    /// writes through it, so the entry was not stored.
    case notAFolder(String, symbolicLink: Bool)

    public var description: String {
        switch self {
        case let .unusableDirectory(path, reason): "cache directory \(path) is unusable: \(reason)"
        case let .storageFull(path, shortage): "\(shortage): could not write cache entry \(path)"
        case let .writeFailed(path, reason): "could not write cache entry \(path): \(reason)"
        case let .readFailed(path, reason): "could not read cache entry \(path): \(reason)"
        case let .entryTooLarge(bytes, limit): "entry of \(bytes) bytes exceeds the cache limit of \(limit) bytes"
        case let .notAFolder(path, symbolicLink):
            "cache folder \(path) is \(symbolicLink ? "a symbolic link" : "not a folder"); the cache never writes through it, "
                + "so nothing was stored: remove it (the cache makes the folder again)"
        }
    }
}

extension DiskCacheError {
    /// What `error`, thrown while writing the entry at `path`, means for the
    /// cache: ``storageFull(_:_:)`` when the file system ran out of room.
    static func writing(_ path: String, _ error: any Error) -> DiskCacheError {
        if let error = error as? DiskCacheError { return error }
        if let shortage = StorageShortage(error) { return .storageFull(path, shortage) }
        return .writeFailed(path, reason: "\(error)")
    }
}
