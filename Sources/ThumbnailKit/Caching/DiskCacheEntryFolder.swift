#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The shard folder of a disk-cache entry (`<namespace>/<first two hex
/// digits>`), open from the cache's own directory descriptor: the entry's
/// temporary file is created, written and renamed into place, and the entry
/// read and touched, relative to it. Each folder on the way is opened with
/// `O_NOFOLLOW`, so a namespace or shard folder replaced by a symbolic link
/// (or by a file) is never gone through, and nothing outside the cache is
/// written, read or touched.
final class DiskCacheEntryFolder: Sendable {
    /// The open folder, closed with this object.
    let descriptor: Int32
    /// `<dir>/<namespace>/<xx>`, for messages.
    let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// `<dir>/<namespace>/<xx>/<name>`, for messages.
    func path(of name: String) -> String { "\(path)/\(name)" }

    /// The shard folder `shard` of `namespace` in the cache open at `cache`,
    /// or `nil` when it (or its namespace folder) does not exist.
    /// - Throws: ``DiskCacheError/notAFolder(_:symbolicLink:)`` when a symbolic
    ///   link or something other than a folder stands in the way;
    ///   ``FileOperationError`` when opening fails otherwise.
    static func open(_ shard: String, of namespace: String, in cache: Int32, at cachePath: String) throws -> DiskCacheEntryFolder? {
        try folder(shard, of: namespace, in: cache, at: cachePath, creating: false)
    }

    /// The shard folder, as ``open(_:of:in:at:)`` opens it, after making it
    /// (and its namespace folder) with `mkdirat` when missing.
    static func make(_ shard: String, of namespace: String, in cache: Int32, at cachePath: String) throws -> DiskCacheEntryFolder {
        guard let folder = try folder(shard, of: namespace, in: cache, at: cachePath, creating: true) else {
            throw FileOperationError(operation: "cannot create directory", path: "\(cachePath)/\(namespace)/\(shard)", code: ENOENT)
        }
        return folder
    }

    private static func folder(_ shard: String, of namespace: String, in cache: Int32, at cachePath: String,
                               creating: Bool) throws -> DiskCacheEntryFolder? {
        let namespacePath = "\(cachePath)/\(namespace)"
        guard let root = try openDirectory(namespace, in: cache, at: namespacePath, creating: creating) else { return nil }
        defer { close(root) }
        let shardPath = "\(namespacePath)/\(shard)"
        guard let descriptor = try openDirectory(shard, in: root, at: shardPath, creating: creating) else { return nil }
        return DiskCacheEntryFolder(descriptor: descriptor, path: shardPath)
    }

    /// The folder `name` of `parent`, opened without following a symbolic link; `nil` when missing and not `creating`.
    private static func openDirectory(_ name: String, in parent: Int32, at path: String, creating: Bool) throws -> Int32? {
        if let folder = FileSystem.openDirectory(name, in: parent) { return folder }
        switch errno {
        case ENOENT:
            guard creating else { return nil }
            try FileSystem.makeDirectory(name, in: parent, path: path)
            return try openDirectory(name, in: parent, at: path, creating: false)
        case ELOOP, ENOTDIR:
            let isLink = FileSystem.status(name, in: parent).map(FileSystem.isSymbolicLink) ?? false
            throw DiskCacheError.notAFolder(path, symbolicLink: isLink)
        default:
            throw FileSystem.failure("cannot open", path)
        }
    }
}
