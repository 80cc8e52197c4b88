import Foundation

/// Runs blocking test work (decoding a corpus, generating large images,
/// waiting for child processes) on a thread of its own while the test
/// suspends. Swift's cooperative pool has one thread per core; a test that
/// held one for seconds would stall every async test running beside it (their
/// servers, their timeouts). Keep `#expect` out of `body`: return what it
/// found and assert in the test, where issues are attributed.
public func runBlocking<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Swift.Result { try body() }) }.start()
    }
}
