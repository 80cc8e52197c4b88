/// TestSupport's `eventually` for main-actor state (a loader's observers, an
/// ``EventLog``): polls every millisecond on the main actor until `condition`
/// holds or `timeout` has passed, and says whether it held.
@MainActor func eventuallyOnMainActor(within timeout: Duration = .seconds(10),
                                      _ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try await Task.sleep(for: .milliseconds(1))
    }
    return true
}

/// Whether `task` finishes within `timeout`. For tasks that only finish if
/// a cancellation gets through: a hang fails the test in seconds instead of
/// stalling the whole run.
@MainActor func finishes(_ task: Task<Void, Never>, within timeout: Duration = .seconds(10)) async throws -> Bool {
    let log = EventLog()
    Task {
        await task.value
        log.append("finished")
    }
    return try await eventuallyOnMainActor(within: timeout) { !log.events.isEmpty }
}
