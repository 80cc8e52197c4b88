import Dispatch

/// Runs blocking work (decoding, file I/O) on Dispatch's threads, suspending
/// the caller: the cooperative pool has one thread per core, and a decode
/// holding one would stall every other task (a list's input and drawing).
package enum BlockingWork {
    /// Runs `body` on a Dispatch thread and returns (or throws) what it did.
    package static func run<Result: Sendable, Failure: Error>(
        _ body: @escaping @Sendable () throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Swift.Result<Result, Failure>, Never>) in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(returning: Swift.Result { () throws(Failure) -> Result in try body() })
            }
        }
        return try outcome.get()
    }
}
