#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Delivers signals to a closure on a thread of its own, outside signal
/// context. The handler is installed with `sigaction`, effective when the
/// initializer returns, so no signal is lost however early it comes; it only
/// writes the signal's number to a pipe (async-signal-safe), which the
/// thread reads. One watcher at a time per process.
final class SignalWatcher {
    private let signals: [Int32]

    init(_ signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        self.signals = signals
        let pipe = signalPipe  // made now, never first inside the signal handler
        DetachedThread.start {
            var byte: UInt8 = 0
            while true {
                let got = read(pipe.read, &byte, 1)
                if got < 0 && errno == EINTR { continue }
                guard got == 1, byte != stopByte else { return }
                handler(Int32(byte))
            }
        }
        for signalNumber in signals { install(forwardToPipe, for: signalNumber) }
    }

    /// Stops watching: the signals' default actions apply again.
    func stop() {
        for signalNumber in signals { install(nil, for: signalNumber) }
        var byte = stopByte
        _ = write(signalPipe.write, &byte, 1)
    }
}

/// Not a signal number: tells the thread to end.
private let stopByte: UInt8 = 0

/// The pipe from the signal handler to the watcher's thread. Should it fail
/// (no descriptors left), signals are lost rather than the program crashing.
private let signalPipe: (read: Int32, write: Int32) = {
    var descriptors: [Int32] = [-1, -1]
    _ = pipe(&descriptors)
    return (descriptors[0], descriptors[1])
}()

/// The signal handler: one `write`, which is async-signal-safe.
private func forwardToPipe(_ signalNumber: Int32) {
    var byte = UInt8(truncatingIfNeeded: signalNumber)
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
