import Dispatch

/// Runs blocking work (decoding, file I/O) on Dispatch's threads, suspending
/// the caller: the cooperative pool has one thread per core, and a decode
/// holding one would stall every other task (a list's input and drawing).
enum BlockingWork {
    /// Runs `body` on a Dispatch thread and returns (or throws) what it did.
    static func run<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Swift.Result { try body() })
            }
        }
    }
}
