#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why the file system took no more bytes: the errors a cache write must
/// treat as "no room", never as success.
public enum StorageShortage: Sendable, Hashable, CustomStringConvertible {
    /// `ENOSPC`: the file system is full.
    case diskFull
    /// `EDQUOT`: the user's disk quota is used up.
    case quotaExceeded
    /// `EFBIG`: the file would pass the process's file size limit
    /// (`RLIMIT_FSIZE`, `ulimit -f`) or the largest file the file system holds.
    case fileSizeLimit

    /// The shortage an `errno` value means, or `nil` for any other error.
    package init?(errno code: Int32) {
        switch code {
        case ENOSPC: self = .diskFull
        case EDQUOT: self = .quotaExceeded
        case EFBIG: self = .fileSizeLimit
        default: return nil
        }
    }

    /// The shortage behind `error`, when it is a file operation that ran out of room.
    init?(_ error: any Error) {
        guard let error = error as? FileOperationError else { return nil }
        self.init(errno: error.code)
    }

    /// Whether removing cache entries can make room: it can on a full disk or
    /// quota, never for a single file larger than the file size limit.
    package var isRelievedByEviction: Bool { self != .fileSizeLimit }

    /// "disk full (No space left on device)".
    public var description: String {
        switch self {
        case .diskFull: "disk full (\(String(cString: strerror(ENOSPC))))"
        case .quotaExceeded: "disk quota exceeded (\(String(cString: strerror(EDQUOT))))"
        case .fileSizeLimit: "file size limit (\(String(cString: strerror(EFBIG))))"
        }
    }
}
