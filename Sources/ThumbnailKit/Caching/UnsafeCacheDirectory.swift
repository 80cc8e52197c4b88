/// Why a directory is no place for a disk cache: the cache would write its
/// `originals/`, `thumbnails/`, `lock` and `journal` among files that are not
/// its own, and `cache clear` would be run there. See ``CacheLocation/refusal(for:)``.
public enum UnsafeCacheDirectory: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file system's root.
    case root(String)
    /// The user's home directory.
    case home(String)
    /// A directory that holds other files and no cache; a few of their names.
    case foreign(String, holding: [String])

    public var description: String {
        switch self {
        case let .root(path): "\(path) is the root directory, not a place for a cache"
        case let .home(path): "\(path) is the home directory, not a place for a cache"
        case let .foreign(path, names):
            "\(path) already holds other files (\(names.joined(separator: ", "))) and no cache; use an empty or new directory"
        }
    }
}
