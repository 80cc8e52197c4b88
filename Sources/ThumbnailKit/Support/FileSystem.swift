#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed file operation: what was attempted, on which path, and the system's reason.
public struct FileOperationError: Error, Sendable, CustomStringConvertible {
    /// What was attempted, as the start of the message: `cannot open`, `cannot write`, ….
    public let operation: String
    /// The file or directory it was attempted on.
    public let path: String
    /// The `errno` value.
    public let code: Int32
    public var description: String { "\(operation) \(path): \(String(cString: strerror(code)))" }
}

/// Writes files that appear whole or not at all: the bytes go to a hidden
/// temporary file in the same directory, renamed over the target once
/// complete. A failed or killed write never leaves a partial file under the
/// real name.
package enum AtomicFile {
    /// Writes `bytes` to `path`, replacing any file there.
    /// - Parameter synchronize: fsync before the rename (durability across power loss).
    package static func write(_ bytes: [UInt8], to path: String, synchronize: Bool = false) throws {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = "\(directory).\(name).tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        do {
            _ = try FileSystem.create(temporary, with: bytes, synchronize: synchronize)
            try FileSystem.move(temporary, to: path)
        } catch let error as FileOperationError {
            try? FileSystem.remove(temporary)
            // Name the file the caller asked for, not the temporary one.
            throw FileOperationError(operation: "cannot write", path: path, code: error.code)
        }
    }

    /// Creates `path` and its missing parents (like `mkdir -p`).
    package static func createDirectory(_ path: String) throws {
        try FileSystem.createDirectories(path)
    }
}

/// The few POSIX file operations the caches and the command line need.
/// (ThumbnailKit links no Foundation; see the start-up figures in docs/platforms.md.)
enum FileSystem {
    static func failure(_ operation: String, _ path: String) -> FileOperationError {
        FileOperationError(operation: operation, path: path, code: errno)
    }

    /// The whole file, or `nil` when it does not exist.
    static func read(_ path: String) throws -> [UInt8]? {
        try read(path, from: 0, upTo: nil)
    }

    /// Bytes from `offset` to the end (or at most `limit` of them), or `nil`
    /// when the file does not exist.
    static func read(_ path: String, from start: Int, upTo limit: Int?) throws -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw failure("cannot open", path)
        }
        defer { close(descriptor) }
        return try read(descriptor, from: start, upTo: limit, path: path)
    }

    /// Bytes of the open file from `offset` to the end (or at most `limit` of them).
    static func read(_ descriptor: Int32, from start: Int, upTo limit: Int?, path: String) throws -> [UInt8] {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure("cannot stat", path) }
        let size = max(0, min(Int(status.st_size) - start, limit ?? Int.max))
        var bytes = [UInt8](repeating: 0, count: size)
        var offset = 0
        while offset < size {
            let got = bytes.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress! + offset, size - offset, off_t(start + offset))
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw failure("cannot read", path)
            }
            if got == 0 { break }  // shrank while reading: the caller sees a short, invalid file
            offset += got
        }
        return offset == size ? bytes : Array(bytes[..<offset])
    }

    /// Creates `path` (which must not exist) with `bytes`, optionally fsyncs it,
    /// and returns the bytes it occupies on disk.
    static func create(_ path: String, with bytes: [UInt8], synchronize: Bool) throws -> Int {
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure("cannot create", path) }
        return try fill(descriptor, with: bytes, path: path, synchronize: synchronize) { unlink(path) }
    }

    /// Creates the file `name` (which must not exist) inside the open directory
    /// `directory` with `bytes`, optionally fsyncs it, and returns the bytes it
    /// occupies on disk. `path` names it in errors.
    static func create(_ name: String, in directory: Int32, path: String, with bytes: [UInt8],
                       synchronize: Bool) throws -> Int {
        let descriptor = try createExclusively(name, in: directory, path: path)
        return try fill(descriptor, with: bytes, path: path, synchronize: synchronize) { unlinkat(directory, name, 0) }
    }

    /// Writes `bytes` to the new file open at `descriptor` and closes it; on
    /// failure closes it and runs `remove`.
    private static func fill(_ descriptor: Int32, with bytes: [UInt8], path: String, synchronize: Bool,
                             removingOnFailure remove: () -> Int32) throws -> Int {
        do {
            try bytes.withUnsafeBytes { try write($0, to: descriptor, path: path) }
            let onDisk = try finishWriting(descriptor, path: path, synchronize: synchronize)
            guard close(descriptor) == 0 else { throw failure("cannot close", path) }
            return onDisk
        } catch {
            close(descriptor)
            _ = remove()
            throw error
        }
    }

    /// Opens a new file `name` inside the open directory `directory` for
    /// reading and writing; it must not exist, and a symbolic link there is
    /// not followed (`EEXIST`). `path` names it in errors.
    static func createExclusively(_ name: String, in directory: Int32, path: String) throws -> Int32 {
        let descriptor = openat(directory, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure("cannot create", path) }
        return descriptor
    }

    /// Writes all of `bytes` at the descriptor's position (or at `offset`).
    static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, at offset: Int? = nil, path: String) throws {
        var done = 0
        while done < bytes.count {
            let written = offset.map { pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t($0 + done)) }
                ?? systemWrite(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if written < 0 {
                if errno == EINTR { continue }
                throw failure("cannot write", path)
            }
            done += written
        }
    }

    /// Optionally fsyncs a written file; returns the bytes it occupies on disk.
    static func finishWriting(_ descriptor: Int32, path: String, synchronize: Bool) throws -> Int {
        if synchronize, fsync(descriptor) != 0 { throw failure("cannot fsync", path) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure("cannot stat", path) }
        return onDiskSize(status)
    }

    /// Up to `count` bytes at `offset`; fewer only at the end of the file.
    static func read(_ descriptor: Int32, count: Int, at offset: Int, path: String) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, count - done, off_t(offset + done)) }
            if got < 0 {
                if errno == EINTR { continue }
                throw failure("cannot read", path)
            }
            if got == 0 { break }
            done += got
        }
        return done == count ? bytes : Array(bytes[..<done])
    }

    /// Allocated blocks, but at least the length rounded up to 4 KiB: some
    /// file systems allocate lazily and report no blocks yet.
    static func onDiskSize(_ status: stat) -> Int {
        let length = (Int(status.st_size) + 4095) / 4096 * 4096
        return max(Int(status.st_blocks) * 512, length)
    }

    static func status(_ path: String) -> stat? {
        var status = stat()
        return stat(path, &status) == 0 ? status : nil
    }

    static func isDirectory(_ status: stat) -> Bool { (status.st_mode & S_IFMT) == S_IFDIR }

    static func isRegularFile(_ status: stat) -> Bool { (status.st_mode & S_IFMT) == S_IFREG }

    /// Modification time in nanoseconds since 1970.
    static func modificationTime(_ status: stat) -> Int64 {
        #if canImport(Darwin)
        Int64(status.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(status.st_mtimespec.tv_nsec)
        #else
        Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        #endif
    }

    /// Sets the open file's modification time to now (the cache's "last used").
    static func touch(_ descriptor: Int32) {
        _ = futimens(descriptor, nil)  // no times: both become now
    }

    /// Now, in nanoseconds since 1970.
    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// Creates `path` and its missing parents.
    static func createDirectories(_ path: String) throws {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component + "/"
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST { throw failure("cannot create directory", prefix) }
        }
        guard let status = status(path), isDirectory(status) else {
            throw FileOperationError(operation: "not a directory:", path: path, code: ENOTDIR)
        }
    }

    /// The names in a directory (not `.` or `..`); empty when it does not exist.
    static func contents(of path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        return names(in: directory)
    }

    private static func names(in directory: OpaquePointer) -> [String] {
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Opens the directory `name` inside the open directory `parent` without
    /// following a symbolic link: `nil` when `name` is missing, is a symbolic
    /// link (`ELOOP`) or is not a directory (`ENOTDIR`); `errno` tells which.
    static func openDirectory(_ name: String, in parent: Int32) -> Int32? {
        let descriptor = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        return descriptor >= 0 ? descriptor : nil
    }

    /// Makes the directory `name` inside the open directory `parent`; anything
    /// already there under that name is fine (opening it tells what it is).
    /// `path` names it in errors.
    static func makeDirectory(_ name: String, in parent: Int32, path: String) throws {
        if mkdirat(parent, name, 0o755) != 0 && errno != EEXIST { throw failure("cannot create directory", path) }
    }

    /// Bytes of the file `name` inside the open directory `directory` from
    /// `start`, at most `limit` of them (all with `nil`); `nil` when there is
    /// no such file or a symbolic link stands there (never followed).
    static func read(_ name: String, in directory: Int32, from start: Int, upTo limit: Int?, path: String) throws -> [UInt8]? {
        guard let descriptor = openFile(name, in: directory) else {
            if errno == ENOENT || errno == ELOOP { return nil }
            throw failure("cannot open", path)
        }
        defer { close(descriptor) }
        return try read(descriptor, from: start, upTo: limit, path: path)
    }

    /// Opens the file `name` inside the open directory `parent` for reading,
    /// without following a symbolic link; `nil` when that fails (`errno` says why).
    static func openFile(_ name: String, in parent: Int32) -> Int32? {
        let descriptor = openat(parent, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        return descriptor >= 0 ? descriptor : nil
    }

    /// The names in the open directory `directory` (not `.` or `..`); the
    /// descriptor stays open and the caller's.
    static func contents(of directory: Int32) -> [String] {
        let copy = dup(directory)
        guard copy >= 0 else { return [] }
        guard let stream = fdopendir(copy) else {
            close(copy)
            return []
        }
        defer { closedir(stream) }
        rewinddir(stream)
        return names(in: stream)
    }

    /// What `name` inside the open directory `directory` is, without following
    /// a symbolic link (`lstat`); `nil` when it is not there.
    static func status(_ name: String, in directory: Int32) -> stat? {
        var status = stat()
        return fstatat(directory, name, &status, AT_SYMLINK_NOFOLLOW) == 0 ? status : nil
    }

    static func isSymbolicLink(_ status: stat) -> Bool { (status.st_mode & S_IFMT) == S_IFLNK }

    /// Removes the file `name` inside the open directory `directory` (a
    /// symbolic link itself, never what it points to); one already gone is fine.
    static func remove(_ name: String, in directory: Int32, path: String) throws {
        if unlinkat(directory, name, 0) != 0 && errno != ENOENT { throw failure("cannot remove", path) }
    }

    /// Removes a file; a file that is already gone is fine.
    static func remove(_ path: String) throws {
        if unlink(path) != 0 && errno != ENOENT { throw failure("cannot remove", path) }
    }

    /// Atomically replaces `destination` with `source` (same file system).
    static func move(_ source: String, to destination: String) throws {
        if rename(source, destination) != 0 { throw failure("cannot rename", source) }
    }

    /// Atomically replaces `destination` in the open directory `destinationDirectory`
    /// with `source` in the open directory `sourceDirectory` (same file system;
    /// a symbolic link at `destination` is replaced itself, never followed).
    /// `path` names `source` in errors.
    static func move(_ source: String, in sourceDirectory: Int32, to destination: String,
                     in destinationDirectory: Int32, path: String) throws {
        if renameat(sourceDirectory, source, destinationDirectory, destination) != 0 { throw failure("cannot rename", path) }
    }

    /// Appends `text` to the file `name` inside the open directory `directory`,
    /// creating it, never through a symbolic link (O_APPEND keeps concurrent
    /// appenders whole). A write cut short is carried on, so a refusal reports
    /// its reason (`ENOSPC`). `path` names it in errors.
    static func append(_ text: String, toFile name: String, in directory: Int32, path: String) throws {
        let descriptor = openat(directory, name, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure("cannot open", path) }
        defer { close(descriptor) }
        try Array(text.utf8).withUnsafeBytes { try write($0, to: descriptor, path: path) }
    }
}

/// write(2), which `FileSystem.write` would shadow inside the enum.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

/// An exclusive lock on a file, shared between processes (`flock`).
/// Within one process, callers must also serialise themselves: flock locks
/// belong to the open file, not the thread.
final class FileLock: Sendable {
    let path: String
    private let descriptor: Int32

    /// Opens (creating) the file `name` inside the open directory `directory`,
    /// never through a symbolic link; `path` names it in errors.
    init(name: String, in directory: Int32, path: String) throws {
        self.path = path
        descriptor = openat(directory, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FileSystem.failure("cannot open lock file", path) }
    }

    deinit { close(descriptor) }

    /// Runs `body` holding the lock, waiting for other processes to release it.
    func withLock<Result>(_ body: () throws -> Result) throws -> Result {
        while flock(descriptor, LOCK_EX) != 0 {
            if errno != EINTR { throw FileSystem.failure("cannot lock", path) }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}
