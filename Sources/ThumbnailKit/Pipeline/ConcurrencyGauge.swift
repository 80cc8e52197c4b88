import Synchronization

/// How many pieces of some work run at once, and the most that ever did:
/// what shows that a limit holds, counted where the work runs rather than
/// where the limit admits it.
final class ConcurrencyGauge: Sendable {
    private let running = Mutex((now: 0, peak: 0))

    /// The most that have run at once so far.
    var peak: Int { running.withLock { $0.peak } }

    /// Runs `body`, counted as running while it does.
    func counting<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        running.withLock { running in
            running.now += 1
            running.peak = max(running.peak, running.now)
        }
        defer { running.withLock { $0.now -= 1 } }
        return try await body()
    }
}
