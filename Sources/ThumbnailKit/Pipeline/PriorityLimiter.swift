import Synchronization

/// Bounds how many operations run at once (downloads, decodes). Waiters are
/// served highest priority first and in arrival order within a priority; a
/// waiter's priority can be raised while it waits (a prefetched row becomes
/// visible). Waiting suspends the task, never a thread, and a task cancelled
/// while it waits leaves the queue at once with `CancellationError`.
///
/// Apps share one among ``ConcurrencyLimitingLoadable``s to bound them
/// together; the pipeline keeps its own for downloads and decodes.
public final class PriorityLimiter: Sendable {
    /// A place in the queue, kept by the caller to raise its priority later.
    /// A ticket serves one ``PriorityLimiter/run(priority:ticket:_:)`` at a
    /// time (a retried download uses its ticket again).
    final class Ticket: Sendable {
        fileprivate let id: UInt64
        fileprivate let limiter: PriorityLimiter

        fileprivate init(id: UInt64, limiter: PriorityLimiter) {
            self.id = id
            self.limiter = limiter
        }

        /// Moves the waiter up to `priority` (never down). No effect once it runs.
        func raise(to priority: RequestPriority) {
            limiter.raise(id, to: priority)
        }
    }

    private struct Waiter {
        let id: UInt64
        var priority: RequestPriority
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var available: Int
        var nextID: UInt64 = 0
        /// Queued waiters in arrival order (ids grow), per priority.
        var queues: [RequestPriority: [Waiter]] = [:]

        var isEmpty: Bool { queues.values.allSatisfy(\.isEmpty) }

        /// Takes a slot if one is free and nobody waits for it.
        mutating func takeFreeSlot() -> Bool {
            guard available > 0, isEmpty else { return false }
            available -= 1
            return true
        }

        /// Removes and returns the next waiter to run.
        mutating func popNext() -> Waiter? {
            for priority in RequestPriority.allCases.reversed() {
                if let first = queues[priority]?.first {
                    queues[priority]?.removeFirst()
                    return first
                }
            }
            return nil
        }

        mutating func remove(_ id: UInt64) -> Waiter? {
            for priority in RequestPriority.allCases {
                if let index = queues[priority]?.firstIndex(where: { $0.id == id }) {
                    return queues[priority]?.remove(at: index)
                }
            }
            return nil
        }

        /// Queues in arrival order: a raised waiter keeps its place by age.
        mutating func enqueue(_ waiter: Waiter) {
            var queue = queues[waiter.priority, default: []]
            let index = queue.firstIndex { $0.id > waiter.id } ?? queue.endIndex
            queue.insert(waiter, at: index)
            queues[waiter.priority] = queue
        }
    }

    /// The most operations that may run at once.
    public let limit: Int
    private let state: Mutex<State>

    /// - Parameter limit: how many operations may run at once; at least 1.
    public init(limit: Int) {
        precondition(limit >= 1, "a limiter needs at least one slot")
        self.limit = limit
        state = Mutex(State(available: limit))
    }

    /// A ticket for ``run(priority:ticket:_:)``, to raise the priority while waiting.
    func makeTicket() -> Ticket {
        Ticket(id: state.withLock { state in
            state.nextID += 1
            return state.nextID
        }, limiter: self)
    }

    /// Runs `operation` once a slot is free, then frees the slot.
    /// - Throws: `CancellationError` if the task is cancelled while waiting;
    ///   otherwise whatever `operation` throws.
    func run<Result: Sendable>(priority: RequestPriority, ticket: Ticket? = nil,
                               _ operation: () async throws -> Result) async throws -> Result {
        try await acquire(priority: priority, id: (ticket ?? makeTicket()).id)
        defer { release() }
        return try await operation()
    }

    /// How many operations wait for a slot now.
    var waitingCount: Int {
        state.withLock { $0.queues.values.reduce(0) { $0 + $1.count } }
    }

    private func acquire(priority: RequestPriority, id: UInt64) async throws {
        if takeFreeSlot() { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Looks for a free slot again under the same lock as the enqueue:
                // a slot freed since the first look must not be missed.
                let acquired = state.withLock { state in
                    if state.takeFreeSlot() { return true }
                    state.enqueue(Waiter(id: id, priority: priority, continuation: continuation))
                    return false
                }
                if acquired {
                    continuation.resume()
                } else if Task.isCancelled {
                    // A cancellation that came before the enqueue found nothing to remove: leave now.
                    leave(id)
                }
            }
        } onCancel: {
            leave(id)
        }
    }

    private func takeFreeSlot() -> Bool {
        state.withLock { $0.takeFreeSlot() }
    }

    /// Takes a cancelled waiter out of the queue (if it is still there) and resumes it with `CancellationError`.
    private func leave(_ id: UInt64) {
        let waiter = state.withLock { $0.remove(id) }
        waiter?.continuation.resume(throwing: CancellationError())
    }

    /// Hands the slot to the next waiter, or frees it.
    private func release() {
        let next = state.withLock { state -> Waiter? in
            if let next = state.popNext() { return next }
            state.available += 1
            return nil
        }
        next?.continuation.resume()
    }

    private func raise(_ id: UInt64, to priority: RequestPriority) {
        state.withLock { state in
            guard var waiter = state.remove(id) else { return }
            waiter.priority = max(waiter.priority, priority)
            state.enqueue(waiter)
        }
    }
}
