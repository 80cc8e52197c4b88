import CommandLineSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns Ctrl-C (SIGINT) and SIGTERM into a call of `handler` (cancelling
/// the work, which then stops cleanly); a second signal exits at once. Both
/// are safe for the caches: every entry is written to a temporary file and
/// renamed into place.
final class Interruption {
    private let watcher: SignalWatcher
    private let received = Counter()

    init(handler: @escaping @Sendable () -> Void) {
        watcher = SignalWatcher([SIGINT, SIGTERM]) { [received] _ in
            if received.increment() > 1 { _exit(130) }
            StandardError.print("\nthumbnailer: interrupted; stopping (Ctrl-C again quits at once)\n")
            handler()
        }
    }

    /// Whether a signal came.
    var happened: Bool { received.value > 0 }

    /// Stops listening: the signals' default actions apply again.
    func stop() {
        watcher.stop()
    }
}

/// Signals received, counted on the watcher's thread.
private final class Counter: Sendable {
    private let count = Atomic(0)

    /// Counts one more and returns the new count.
    func increment() -> Int { count.add(1, ordering: .relaxed).newValue }

    var value: Int { count.load(ordering: .relaxed) }
}
