import Synchronization

/// Shares one piece of async work among everyone who asks for the same key
/// while it runs: twenty rows showing one image cause one download and one
/// decode.
///
/// A caller whose task is cancelled leaves at once with `CancellationError`;
/// the work goes on for the others and is cancelled only when the last caller
/// has left (``waitForAbandonedWork()`` waits for it to end). What the callers
/// want travels with the work (``SharedWork``): the sizes, their progress
/// listeners, and the highest priority among them, which the work is told of
/// as it rises so it can move up in a ``PriorityLimiter`` queue.
package final class Coalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        let generation: UInt64
        let work: SharedWork
        var waiters: [UInt64: CheckedContinuation<Value, any Error>] = [:]
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// Every work task until it ends, by its entry's generation; one whose
        /// entry is gone was abandoned by its last caller.
        var running: [UInt64: Task<Void, Never>] = [:]
        var nextID: UInt64 = 0

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }
    }

    private let state = Mutex(State())

    package init() {}

    /// Keys with work in flight now.
    var inFlightCount: Int { state.withLock { $0.entries.count } }

    /// Callers waiting for `key`'s work now.
    func callerCount(for key: Key) -> Int {
        state.withLock { $0.entries[key]?.waiters.count ?? 0 }
    }

    /// The value for `key`: from the work already running for it, or from
    /// `work`, started now in its own task, which is cancelled when the last
    /// caller leaves.
    /// - Throws: what the work throws, or `CancellationError` if this caller's task is cancelled.
    package func value(for key: Key, work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await value(for: key, priority: .normal) { _ in try await work() }
    }

    /// The value for `key`: from the work already running for it, or from
    /// `work`, started now in its own task. `caller` joins the work's
    /// ``SharedWork`` until the value arrives or this caller leaves.
    /// - Throws: what the work throws, or `CancellationError` if this caller's task is cancelled.
    func value(for key: Key, priority: RequestPriority, as caller: SharedWork.Caller = SharedWork.Caller(),
               work: @escaping @Sendable (SharedWork) async throws -> Value) async throws -> Value {
        let waiterID = state.withLock { $0.makeID() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                join(key: key, waiter: waiterID, caller: caller, priority: priority, continuation: continuation, work: work)
                if Task.isCancelled { leave(key: key, waiter: waiterID) }
            }
        } onCancel: {
            leave(key: key, waiter: waiterID)
        }
    }

    /// Returns once every piece of work whose callers have all left has ended:
    /// its cancellation handled to the end (a transfer closed, a temporary file
    /// removed). Work that still has callers is not waited for.
    func waitForAbandonedWork() async {
        while let abandoned = state.withLock({ state -> Task<Void, Never>? in
            let wanted = Set(state.entries.values.map(\.generation))
            return state.running.first { !wanted.contains($0.key) }?.value
        }) {
            await abandoned.value
        }
    }

    private func join(key: Key, waiter: UInt64, caller: SharedWork.Caller, priority: RequestPriority,
                      continuation: CheckedContinuation<Value, any Error>,
                      work: @escaping @Sendable (SharedWork) async throws -> Value) {
        let shared = state.withLock { state -> SharedWork in
            if var entry = state.entries[key] {
                entry.waiters[waiter] = continuation
                state.entries[key] = entry
                // Under the lock: the work cannot finish between joining the entry and its callers.
                entry.work.join(waiter, caller)
                return entry.work
            }
            let generation = state.makeID()
            var entry = Entry(generation: generation, work: SharedWork(priority: priority))
            entry.waiters[waiter] = continuation
            state.entries[key] = entry
            // Before the work starts, so its first look finds this caller's sizes.
            entry.work.join(waiter, caller)
            // Started under the lock, so it is in `running` before it can finish and leave it.
            state.running[generation] = Task { [shared = entry.work] in
                let result: Result<Value, any Error>
                do {
                    result = .success(try await work(shared))
                } catch {
                    result = .failure(error)
                }
                finish(key: key, generation: generation, with: result)
            }
            return entry.work
        }
        // Outside the lock: the observers move tickets in a limiter's queue.
        shared.raise(to: priority)
    }

    /// One caller leaves; the last one to leave cancels the work.
    private func leave(key: Key, waiter: UInt64) {
        let (continuation, abandoned) = state.withLock { state -> (CheckedContinuation<Value, any Error>?, Task<Void, Never>?) in
            guard var entry = state.entries[key], let continuation = entry.waiters.removeValue(forKey: waiter) else {
                return (nil, nil)
            }
            entry.work.leave(waiter)
            if entry.waiters.isEmpty {
                state.entries[key] = nil
                return (continuation, state.running[entry.generation])
            }
            state.entries[key] = entry
            return (continuation, nil)
        }
        continuation?.resume(throwing: CancellationError())
        abandoned?.cancel()
    }

    private func finish(key: Key, generation: UInt64, with result: Result<Value, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            state.running[generation] = nil
            guard let entry = state.entries[key], entry.generation == generation else { return [] }
            state.entries[key] = nil
            return Array(entry.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }
}
