import Synchronization

/// The pipeline's counters, updated from any task.
final class StatisticsCounter: Sendable {
    private let value = Mutex(PipelineStatistics())

    func record(_ change: (inout PipelineStatistics) -> Void) {
        value.withLock { change(&$0) }
    }

    var snapshot: PipelineStatistics { value.withLock { $0 } }
}
