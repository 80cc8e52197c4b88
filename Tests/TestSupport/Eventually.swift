/// Polls `condition` every millisecond until it holds or `timeout` has passed,
/// and says whether it held. The only waiting the tests do, with generous
/// bounds: a fast machine returns at once; a busy one (CPU-bound suites can
/// hold the cooperative pool for many seconds) still passes. Runs on
/// the caller's actor, so the condition may read main-actor state.
public func eventually(within timeout: Duration = .seconds(60), isolation: isolated (any Actor)? = #isolation,
                       _ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try await Task.sleep(for: .milliseconds(1))
    }
    return true
}
