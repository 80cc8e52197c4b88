import Foundation
import Synchronization

/// What a disk cache directory holds, seen from outside the cache.
public enum CacheDirectory {
    /// The writers' temporary files (`.tmp-<pid>-<random>`) anywhere under `path`, relative to it.
    public static func temporaryFiles(in path: String) -> [String] {
        let files = (try? FileManager.default.subpathsOfDirectory(atPath: path)) ?? []
        return files.filter { $0.split(separator: "/").last?.hasPrefix(".tmp-") == true }
    }
}

/// A cache directory's lock (`<dir>/lock`, the `flock` a process takes to
/// change the index), held by the test as a busy process would hold it: every
/// other process's index change, and its statistics, wait until ``release()``.
public final class HeldCacheLock: Sendable {
    /// The locked file, until it is released (then -1).
    private let descriptor: Mutex<Int32>

    public init(directory: String) throws {
        let file = open(directory + "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard file >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        while flock(file, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let failure = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                close(file)
                throw failure
            }
        }
        descriptor = Mutex(file)
    }

    deinit { release() }

    /// Releases the lock (closing the file releases it); safe to call more than once.
    public func release() {
        descriptor.withLock { file in
            if file >= 0 { close(file) }
            file = -1
        }
    }
}
