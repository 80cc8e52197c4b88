#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A walk of the disk cache's namespace folders that never leaves the cache
/// directory: every folder is opened relative to its parent's descriptor
/// (`openat` with `O_NOFOLLOW`), every name is looked at with `lstat`
/// (`fstatat`), and a symbolic link anywhere inside is reported, never
/// followed. What a visitor removes it removes with `unlinkat` in the folder
/// the walk holds open, so a folder swapped for a link meanwhile is not
/// entered either.
struct CacheDirectoryWalk {
    /// What the walk finds in the namespace folders.
    enum Found {
        /// A regular file named like an entry, in the shard folder its name starts with.
        case entry(Entry)
        /// A temporary file of a writer (`.tmp-<pid>-<random>`), in `folder`.
        case temporary(name: String, folder: Int32, path: String)
        /// A symbolic link: left alone.
        case symbolicLink(path: String)
        /// Anything else: not the cache's, left alone.
        case foreign(path: String)
    }

    /// An entry file, with the shard folder the walk holds open.
    struct Entry {
        /// `<namespace>/<sha256 hex>`.
        let id: String
        let namespace: DiskCache.Namespace
        let path: String
        /// The open shard folder; valid while the visitor runs.
        let folder: Int32
        let name: String
        let status: stat
    }

    /// The open cache directory, and its path for messages.
    let directory: Int32
    let path: String

    /// Visits everything in the namespace folders, in name order.
    func forEach(_ visit: (Found) throws -> Void) throws {
        for namespace in DiskCache.Namespace.allCases {
            try inFolder(namespace.rawValue, of: directory, at: "\(path)/\(namespace.rawValue)", visit) { root, rootPath in
                for shard in FileSystem.contents(of: root).sorted() {
                    let shardPath = "\(rootPath)/\(shard)"
                    guard shard.count == 2 else {
                        try visit(kind(of: shard, in: root, at: shardPath))
                        continue
                    }
                    try inFolder(shard, of: root, at: shardPath, visit) { folder, _ in
                        for name in FileSystem.contents(of: folder).sorted() {
                            try visit(found(name, in: folder, shard: shard, namespace: namespace, at: "\(shardPath)/\(name)"))
                        }
                    }
                }
            }
        }
    }

    /// Runs `body` with the folder `name` of `parent` open; a symbolic link or
    /// anything but a folder there is visited instead, a missing one skipped.
    private func inFolder(_ name: String, of parent: Int32, at path: String, _ visit: (Found) throws -> Void,
                          _ body: (Int32, String) throws -> Void) throws {
        guard let folder = FileSystem.openDirectory(name, in: parent) else {
            if errno == ENOENT { return }
            // ELOOP: a symbolic link; ENOTDIR: a file. Swapped since the listing or not, never entered.
            try visit(kind(of: name, in: parent, at: path))
            return
        }
        defer { close(folder) }
        try body(folder, path)
    }

    /// A symbolic link or a foreign file, by `lstat`.
    private func kind(of name: String, in parent: Int32, at path: String) -> Found {
        FileSystem.status(name, in: parent).map(FileSystem.isSymbolicLink) == true ? .symbolicLink(path: path) : .foreign(path: path)
    }

    private func found(_ name: String, in folder: Int32, shard: String, namespace: DiskCache.Namespace, at path: String) -> Found {
        guard let status = FileSystem.status(name, in: folder) else { return .foreign(path: path) }
        if FileSystem.isSymbolicLink(status) { return .symbolicLink(path: path) }
        if name.hasPrefix(".tmp-"), FileSystem.isRegularFile(status) { return .temporary(name: name, folder: folder, path: path) }
        guard name.count == 64, name.hasPrefix(shard), FileSystem.isRegularFile(status) else { return .foreign(path: path) }
        return .entry(Entry(id: "\(namespace.rawValue)/\(name)", namespace: namespace, path: path, folder: folder,
                            name: name, status: status))
    }
}
