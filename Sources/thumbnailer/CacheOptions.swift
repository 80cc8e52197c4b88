import ArgumentParser
import CommandLineSupport
import ThumbnailKit
import ThumbnailTerminal

/// Where the disk cache is and how big it may grow: what every command that
/// uses the cache takes. A directory that is no place for a cache (`/`, the
/// home directory, a folder of other files) is refused unless `--force`; one
/// that cannot hold a cache (a file, a directory this process cannot write) is
/// a usage error too (exit 64), whatever the flags.
struct CacheOptions: ParsableArguments {
    @Option(help: "Cache directory (default: $THUMBNAILER_CACHE_DIR, else $XDG_CACHE_HOME/thumbnailer or ~/.cache/thumbnailer).")
    var cacheDir: String?

    @Option(help: "The disk cache's size limit, e.g. 512M or 2G (at least 1 byte; no unlimited).")
    var diskLimit = ByteCount(bytes: 1 << 30)

    @Flag(help: "Use the cache directory even when it is /, the home directory or a folder of other files.")
    var force = false

    /// The directory asked for, else the default one.
    var directory: String { cacheDir ?? CacheLocation.defaultDirectory() }

    func validate() throws {
        try LimitOption.validate(diskLimit.bytes, "--disk-limit", unit: "byte")
        if !force, let refusal = CacheLocation.refusal(for: directory) {
            throw ValidationError(TerminalText.escaped("refusing the cache directory: \(refusal) (--force uses it anyway)"))
        }
    }

    /// A usage error when no cache can be made in the directory (a file, a
    /// directory this process cannot write): for the commands that will use it,
    /// so that `cache stats --store` runs where the default directory cannot be written.
    func validateUsable() throws {
        try validate()  // a refused directory is said first, and never written to
        // The path may hold anything: escaped like every path the commands print.
        if let unusable = CacheLocation.unusability(of: directory) { throw ValidationError(TerminalText.escaped("\(unusable)")) }
    }

    /// Opens (creating if needed) the disk cache; a failure exits 1.
    func open() throws -> DiskCache {
        do {
            return try DiskCache(directory: directory, sizeLimit: diskLimit.bytes)
        } catch {
            throw CommandFailure("cannot use the cache: \(error)", exitCode: 1)
        }
    }
}
