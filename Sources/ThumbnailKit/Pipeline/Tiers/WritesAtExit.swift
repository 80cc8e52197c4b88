#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The stored-copy writes in flight in this process, which its exit waits
/// for. Stored copies are written after the thumbnail has reached its
/// callers, so a short program (get a thumbnail, print, return) would
/// otherwise end while its original and encoded thumbnail are being written,
/// leaving nothing on disk for the next run. An `atexit` hook, registered
/// with the first write, waits for them, at most ``longestWait``: a write is
/// a few file operations, and exit must never hang on a stuck disk.
enum WritesAtExit {
    /// How long exit waits for the writes in flight.
    static let longestWait = Duration.seconds(10)

    private static let inFlight = Mutex(0)
    private static let hook: Void = { atexit { WritesAtExit.waitForWritesInFlight() } }()

    /// Counts a write from now until `end()`.
    static func begin() {
        _ = hook
        inFlight.withLock { $0 += 1 }
    }

    /// The write counted by `begin()` is over.
    static func end() {
        inFlight.withLock { $0 -= 1 }
    }

    private static func waitForWritesInFlight() {
        let deadline = ContinuousClock.now + longestWait
        while inFlight.withLock({ $0 }) > 0, ContinuousClock.now < deadline {
            usleep(1_000)
        }
    }
}
