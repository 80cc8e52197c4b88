/// Polls `condition` every millisecond until it holds or `timeout` has passed,
/// and says whether it held. The only waiting the tests do, with generous
/// bounds: a fast machine returns at once, a slow one still passes.
public func eventually(within timeout: Duration = .seconds(10), _ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try await Task.sleep(for: .milliseconds(1))
    }
    return true
}
