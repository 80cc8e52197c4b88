import Synchronization

/// Bounds the renders a server runs at once and the requests waiting for one:
/// a request past a full queue is refused at once (``Overloaded``), so a burst
/// costs a quick 503 instead of memory and latency for everyone.
///
/// A waiting request whose task is cancelled (its client went away, its
/// deadline passed) leaves the queue at once; a slot is handed to the next
/// waiter in arrival order.
final class RenderAdmission: Sendable {
    /// The queue was full: nothing was started.
    struct Overloaded: Error {}

    private struct State {
        var running = 0
        var nextID: UInt64 = 0
        /// Waiters in arrival order (ids grow).
        var waiting: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    }

    /// Renders at once, at most.
    let maximumRenders: Int
    /// Requests waiting for a render slot, at most.
    let maximumQueue: Int
    private let state = Mutex(State())
    private let metrics: ServingMetrics

    init(maximumRenders: Int, maximumQueue: Int, metrics: ServingMetrics) {
        precondition(maximumRenders >= 1 && maximumQueue >= 0, "a render bound of at least 1 and a queue of at least 0")
        self.maximumRenders = maximumRenders
        self.maximumQueue = maximumQueue
        self.metrics = metrics
    }

    /// Runs `render` in a slot, waiting in the queue for one if need be.
    /// - Throws: ``Overloaded`` when the queue is full, `CancellationError`
    ///   when the task is cancelled while it waits, or what `render` throws.
    func withSlot<Result: Sendable>(_ render: () async throws -> Result) async throws -> Result {
        try await acquire()
        defer { release() }
        return try await render()
    }

    private func acquire() async throws {
        enum Admission { case now, queued, refused }
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let admission = state.withLock { state -> Admission in
                    if state.running < maximumRenders {
                        state.running += 1
                        return .now
                    }
                    guard state.waiting.count < maximumQueue else { return .refused }
                    state.waiting.append((id, continuation))
                    return .queued
                }
                switch admission {
                case .now: continuation.resume()
                case .refused:
                    metrics.overloaded.increment()
                    continuation.resume(throwing: Overloaded())
                case .queued: if Task.isCancelled { leaveQueue(id) }
                }
                record()
            }
        } onCancel: {
            leaveQueue(id)
        }
    }

    /// A cancelled waiter leaves the queue (a no-op once it has its slot).
    private func leaveQueue(_ id: UInt64) {
        let removed = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiting.remove(at: index).continuation
        }
        removed?.resume(throwing: CancellationError())
        record()
    }

    /// Hands the slot to the first waiter, or frees it.
    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard !state.waiting.isEmpty else {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst().continuation
        }
        next?.resume()
        record()
    }

    private func record() {
        let (running, queued) = state.withLock { ($0.running, $0.waiting.count) }
        metrics.rendersInFlight.record(running)
        metrics.queueLength.record(queued)
    }
}
