import TestSupport

/// Whether `task` finishes within `timeout`. For tasks that only finish if
/// a cancellation gets through: a hang fails the test in seconds instead of
/// stalling the whole run.
@MainActor func finishes(_ task: Task<Void, Never>, within timeout: Duration = .seconds(60)) async throws -> Bool {
    let log = EventLog()
    Task {
        await task.value
        log.append("finished")
    }
    return try await eventually(within: timeout) { !log.events.isEmpty }
}
