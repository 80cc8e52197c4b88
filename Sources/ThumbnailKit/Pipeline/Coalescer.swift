import Synchronization

/// Shares one piece of async work among everyone who asks for the same key
/// while it runs: twenty rows showing one image cause one download and one
/// decode.
///
/// A caller whose task is cancelled leaves at once with `CancellationError`;
/// the work goes on for the others and is cancelled only when the last caller
/// has left. The work runs at the highest priority among its callers and is
/// told when that rises (``Work/onPriorityRaised(_:)``), so it can move up in
/// a ``PriorityLimiter`` queue.
public final class Coalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// What the shared work knows about the callers waiting for it.
    public final class Work: Sendable {
        private let state: Mutex<(priority: RequestPriority, observers: [@Sendable (RequestPriority) -> Void])>

        fileprivate init(priority: RequestPriority) {
            state = Mutex((priority, []))
        }

        /// The highest priority among the callers so far.
        public var priority: RequestPriority { state.withLock { $0.priority } }

        /// Calls `observer` with each new, higher priority.
        public func onPriorityRaised(_ observer: @escaping @Sendable (RequestPriority) -> Void) {
            state.withLock { $0.observers.append(observer) }
        }

        fileprivate func raise(to priority: RequestPriority) {
            let observers = state.withLock { state -> [@Sendable (RequestPriority) -> Void] in
                guard priority > state.priority else { return [] }
                state.priority = priority
                return state.observers
            }
            for observer in observers { observer(priority) }
        }
    }

    private struct Entry {
        let generation: UInt64
        let work: Work
        var task: Task<Void, Never>?
        var waiters: [UInt64: CheckedContinuation<Value, any Error>] = [:]
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var nextID: UInt64 = 0

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }
    }

    private let state = Mutex(State())

    public init() {}

    /// Keys with work in flight now.
    public var inFlightCount: Int { state.withLock { $0.entries.count } }

    /// Callers waiting for `key`'s work now.
    public func callerCount(for key: Key) -> Int {
        state.withLock { $0.entries[key]?.waiters.count ?? 0 }
    }

    /// Raises the priority of the work running for `key`, if any, as a new
    /// caller at `priority` would (for work that waits on this work).
    public func raisePriority(for key: Key, to priority: RequestPriority) {
        state.withLock { $0.entries[key]?.work }?.raise(to: priority)
    }

    /// The value for `key`: from the work already running for it, or from
    /// `work`, started now in its own task.
    /// - Throws: what the work throws, or `CancellationError` if this caller's task is cancelled.
    public func value(for key: Key, priority: RequestPriority,
                      work: @escaping @Sendable (Work) async throws -> Value) async throws -> Value {
        let waiterID = state.withLock { $0.makeID() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                join(key: key, waiter: waiterID, priority: priority, continuation: continuation, work: work)
                if Task.isCancelled { leave(key: key, waiter: waiterID) }
            }
        } onCancel: {
            leave(key: key, waiter: waiterID)
        }
    }

    private func join(key: Key, waiter: UInt64, priority: RequestPriority,
                      continuation: CheckedContinuation<Value, any Error>,
                      work: @escaping @Sendable (Work) async throws -> Value) {
        let (started, shared) = state.withLock { state -> (Entry?, Work) in
            if var entry = state.entries[key] {
                entry.waiters[waiter] = continuation
                state.entries[key] = entry
                return (nil, entry.work)
            }
            var entry = Entry(generation: state.makeID(), work: Work(priority: priority))
            entry.waiters[waiter] = continuation
            state.entries[key] = entry
            return (entry, entry.work)
        }
        shared.raise(to: priority)
        guard let started else { return }
        let task = Task {
            let result: Result<Value, any Error>
            do {
                result = .success(try await work(started.work))
            } catch {
                result = .failure(error)
            }
            finish(key: key, generation: started.generation, with: result)
        }
        state.withLock { state in
            // The last caller may already have left; then nobody wants the result.
            if state.entries[key]?.generation == started.generation {
                state.entries[key]?.task = task
            } else {
                task.cancel()
            }
        }
    }

    /// One caller leaves; the last one to leave cancels the work.
    private func leave(key: Key, waiter: UInt64) {
        let (continuation, abandoned) = state.withLock { state -> (CheckedContinuation<Value, any Error>?, Task<Void, Never>?) in
            guard var entry = state.entries[key], let continuation = entry.waiters.removeValue(forKey: waiter) else {
                return (nil, nil)
            }
            if entry.waiters.isEmpty {
                state.entries[key] = nil
                return (continuation, entry.task)
            }
            state.entries[key] = entry
            return (continuation, nil)
        }
        continuation?.resume(throwing: CancellationError())
        abandoned?.cancel()
    }

    private func finish(key: Key, generation: UInt64, with result: Result<Value, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            guard let entry = state.entries[key], entry.generation == generation else { return [] }
            state.entries[key] = nil
            return Array(entry.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }
}
