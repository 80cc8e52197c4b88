import ThumbnailKit
import Synchronization

/// Cancels a task that may not exist yet: a cancel that comes first is
/// applied when the task is attached.
final class CancellationSwitch: Sendable {
    private let state = Mutex<(task: Task<WarmReport, Never>?, cancelled: Bool)>((nil, false))

    func attach(_ task: Task<WarmReport, Never>) {
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}
