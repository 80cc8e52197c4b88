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

extension ChildProcess {
    /// ``run(_:executable:environment:limits:)`` waiting on a thread of its own: a test that waited
    /// for its children on the cooperative pool held one of its threads (one per core) for as long,
    /// and on 2 cores the synchronous CLI tests together stalled every async suite for over a minute.
    public static func run(_ arguments: [String], executable: String = thumbnailer,
                           environment: [String: String] = [:], limits: Limits? = nil) async throws -> Outcome {
        try await runBlocking { try run(arguments, executable: executable, environment: environment, limits: limits) }
    }
}
