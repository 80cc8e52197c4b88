import Synchronization
import Testing

/// A fetch the test finishes by hand: every call records that it started and
/// waits until the test answers it, oldest first, so tests decide when work
/// ends instead of sleeping. Counts the calls waiting at once, for limits.
final class ManualFetch<Value: Sendable>: Sendable {
    private struct Call {
        let id: UInt64
        let continuation: CheckedContinuation<Value, any Error>
    }

    private struct State {
        var started: [String] = []
        var waiting: [Call] = []
        var peakWaiting = 0
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())
    private let ignoresCancellation: Bool

    /// - Parameter ignoringCancellation: whether a call keeps waiting when its
    ///   task is cancelled (work that cannot stop early) instead of throwing
    ///   `CancellationError` at once.
    init(ignoringCancellation: Bool = false) {
        ignoresCancellation = ignoringCancellation
    }

    /// The names of the calls so far, in the order they started.
    var started: [String] { state.withLock { $0.started } }
    var callCount: Int { state.withLock { $0.started.count } }
    /// Calls started and not yet answered.
    var waitingCount: Int { state.withLock { $0.waiting.count } }
    /// The most calls that were waiting at the same time.
    var peakWaiting: Int { state.withLock { $0.peakWaiting } }

    /// The fetch: records `name`, then waits for ``succeed(_:)`` or ``fail(_:)``.
    func run(_ name: String = "") async throws -> Value {
        let id = state.withLock { state in
            state.nextID += 1
            state.started.append(name)
            return state.nextID
        }
        if ignoresCancellation {
            return try await withCheckedThrowingContinuation { enqueue(Call(id: id, continuation: $0)) }
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                enqueue(Call(id: id, continuation: continuation))
                // A cancellation before the enqueue found nothing to answer.
                if Task.isCancelled { answer(id, with: .failure(CancellationError())) }
            }
        } onCancel: {
            answer(id, with: .failure(CancellationError()))
        }
    }

    /// Answers the oldest waiting call with `value`.
    func succeed(_ value: Value) { answerOldest(with: .success(value)) }

    /// Answers the oldest waiting call with `error`.
    func fail(_ error: any Error) { answerOldest(with: .failure(error)) }

    private func enqueue(_ call: Call) {
        state.withLock { state in
            state.waiting.append(call)
            state.peakWaiting = max(state.peakWaiting, state.waiting.count)
        }
    }

    private func answerOldest(with result: Result<Value, any Error>) {
        guard let call = state.withLock({ $0.waiting.isEmpty ? nil : $0.waiting.removeFirst() }) else {
            Issue.record("no fetch is waiting to be answered")
            return
        }
        call.continuation.resume(with: result)
    }

    private func answer(_ id: UInt64, with result: Result<Value, any Error>) {
        let call = state.withLock { state in
            state.waiting.firstIndex { $0.id == id }.map { state.waiting.remove(at: $0) }
        }
        call?.continuation.resume(with: result)
    }
}
