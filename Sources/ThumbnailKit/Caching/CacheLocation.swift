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
