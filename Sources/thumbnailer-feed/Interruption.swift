import CommandLineSupport
import Foundation
import Synchronization

/// Turns Ctrl-C (SIGINT) and SIGTERM into a call of `handler` (cancelling
/// the work, which then stops cleanly); a second signal exits at once. Both
/// are safe for the caches: every entry is written to a temporary file and
/// renamed into place.
///
/// The signal handler is installed with `sigaction`, effective when it
/// returns, so no signal is lost however early it comes. The handler only
/// does what is async-signal-safe: it counts, and writes a byte to a pipe
/// that a thread of this class reads to call `handler` outside signal context.
final class Interruption {
    private let watcher: Thread

    init(handler: @escaping @Sendable () -> Void) {
        let pipe = signalPipe  // made now, never first inside the signal handler
        watcher = Thread {
            var byte: UInt8 = 0
            while read(pipe.read, &byte, 1) < 0 && errno == EINTR {}
            guard byte == SignalByte.received else { return }  // stop() woke it
            StandardError.print("\nthumbnailer: interrupted; stopping (Ctrl-C again quits at once)\n")
            handler()
        }
        watcher.start()
        for signalNumber in [SIGINT, SIGTERM] { install(countAndNotify, for: signalNumber) }
    }

    /// Whether a signal came.
    var happened: Bool { signalsReceived.load(ordering: .relaxed) > 0 }

    /// Stops listening: the signals' default actions apply again.
    func stop() {
        for signalNumber in [SIGINT, SIGTERM] { install(nil, for: signalNumber) }
        if !happened {
            var byte = SignalByte.stop
            _ = write(signalPipe.write, &byte, 1)
        }
    }
}

/// What the pipe carries.
private enum SignalByte {
    static let received: UInt8 = 1
    static let stop: UInt8 = 2
}

/// The pipe from the signal handler to the watcher thread. Should it fail
/// (no descriptors left), the first Ctrl-C only counts and the second quits.
private let signalPipe: (read: Int32, write: Int32) = {
    var descriptors: [Int32] = [-1, -1]
    _ = pipe(&descriptors)
    return (descriptors[0], descriptors[1])
}()

/// Signals received so far.
private let signalsReceived = Atomic(0)

/// The signal handler: async-signal-safe only (an atomic add, write, _exit).
private func countAndNotify(_: Int32) {
    if signalsReceived.add(1, ordering: .relaxed).newValue > 1 { _exit(130) }
    var byte = SignalByte.received
    _ = write(signalPipe.write, &byte, 1)
}

/// Installs `handler` for `signalNumber`, or the default action for `nil`.
private func install(_ handler: (@convention(c) (Int32) -> Void)?, for signalNumber: Int32) {
    var action = sigaction()
    sigemptyset(&action.sa_mask)
    #if canImport(Glibc)
    action.__sigaction_handler.sa_handler = handler ?? SIG_DFL
    #else
    action.__sigaction_u.__sa_handler = handler ?? SIG_DFL
    #endif
    sigaction(signalNumber, &action, nil)
}
