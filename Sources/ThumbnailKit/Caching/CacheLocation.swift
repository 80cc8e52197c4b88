#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the cache lives when the caller does not say.
public enum CacheLocation {
    /// `$THUMBNAILER_CACHE_DIR`; else on Linux `$XDG_CACHE_HOME/thumbnailer` or
    /// `~/.cache/thumbnailer`; on macOS `~/Library/Caches/thumbnailer`.
    public static func defaultDirectory() -> String {
        if let explicit = environment("THUMBNAILER_CACHE_DIR"), !explicit.isEmpty { return explicit }
        #if canImport(Darwin)
        return "\(homeDirectory())/Library/Caches/thumbnailer"
        #else
        if let xdg = environment("XDG_CACHE_HOME"), xdg.hasPrefix("/") { return "\(xdg)/thumbnailer" }
        return "\(homeDirectory())/.cache/thumbnailer"
        #endif
    }

    /// Why `directory` must not hold a cache, or `nil` when it may: it may
    /// when it does not exist yet, is empty, or holds a cache already (the
    /// `originals/` and `thumbnails/` folders, or a journal of ours). It may
    /// not when it is `/` or the home directory (symbolic links followed), or
    /// holds other files.
    public static func refusal(for directory: String) -> UnsafeCacheDirectory? {
        guard let resolved = realPath(directory) else { return nil }  // not there yet: it will be made for the cache
        if resolved == "/" { return .root(directory) }
        if realPath(homeDirectory()) == resolved { return .home(directory) }
        let names = FileSystem.contents(of: resolved).sorted()
        guard !names.isEmpty, !holdsCache(resolved) else { return nil }
        return .foreign(directory, holding: Array(names.prefix(3)) + (names.count > 3 ? ["…"] : []))
    }

    /// Why no cache can be made at `directory`, or `nil` when one can: the
    /// directory, or the nearest folder above it that exists (where it would
    /// be created), must be a directory this process can create files in. That
    /// is tried with a file created and removed at once, not read from the
    /// permission bits, which root passes over and a read-only mount ignores.
    public static func unusability(of directory: String) -> DiskCacheError? {
        var existing = directory.isEmpty ? "." : directory
        while FileSystem.status(existing) == nil {
            guard let slash = existing.lastIndex(of: "/") else {
                existing = "."
                break
            }
            existing = slash == existing.startIndex ? "/" : String(existing[..<slash])
        }
        let named = existing == directory ? "it" : existing
        guard let status = FileSystem.status(existing), FileSystem.isDirectory(status) else {
            return .unusableDirectory(directory, reason: "\(named) is a file, not a directory")
        }
        let probe = "\(existing)/.thumbnailer-probe-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            return .unusableDirectory(directory, reason: "\(named) is not writable (\(String(cString: strerror(errno))))")
        }
        close(descriptor)
        unlink(probe)
        return nil
    }

    /// Whether `directory` has a cache's tiers or its journal.
    private static func holdsCache(_ directory: String) -> Bool {
        let tiers = DiskCache.Namespace.allCases.allSatisfy { namespace in
            FileSystem.status("\(directory)/\(namespace.rawValue)").map(FileSystem.isDirectory) == true
        }
        let journal = (try? FileSystem.read("\(directory)/journal", from: 0, upTo: DiskCacheIndex.header.utf8.count))
            .flatMap { $0 }.map { $0.elementsEqual(DiskCacheIndex.header.utf8) } == true
        return tiers || journal
    }

    /// The absolute path without symbolic links, `.` or `..`; `nil` when it does not exist.
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// `$HOME`, else the password database's entry for this user.
    private static func homeDirectory() -> String {
        if let home = environment("HOME"), !home.isEmpty { return home }
        if let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir { return String(cString: directory) }
        return "/tmp/thumbnailer-\(getuid())"
    }
}
