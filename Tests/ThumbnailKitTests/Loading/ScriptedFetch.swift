import Synchronization

/// A fetch that answers at once: each call gets the next outcome of a script
/// (the last one repeats), and the calls are counted.
final class ScriptedFetch<Value: Sendable>: Sendable {
    private let outcomes: [Result<Value, TestFailure>]
    private let calls = Mutex(0)

    init(_ outcomes: [Result<Value, TestFailure>]) {
        precondition(!outcomes.isEmpty, "a script needs an outcome")
        self.outcomes = outcomes
    }

    var callCount: Int { calls.withLock { $0 } }

    func run() throws -> Value {
        let call = calls.withLock { calls in
            calls += 1
            return calls
        }
        return try outcomes[min(call, outcomes.count) - 1].get()
    }
}
