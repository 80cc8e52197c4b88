import Synchronization

/// Holds a current value and broadcasts every change to any number of
/// observers, each of which starts with the value current when it subscribed
/// (a view that appears late shows `loaded`, not an empty frame).
///
/// Every observer gets its own stream from ``values()``, so nothing is
/// exhausted by a second reader; a stream whose consumer stops (its task is
/// cancelled, its loop breaks) is removed at once. All observers see the same
/// changes in the same order: changes are delivered under the relay's lock.
/// Usable from any isolation domain.
public final class StateRelay<Value: Sendable>: Sendable {
    private struct State {
        var value: Value
        var observers: [UInt64: AsyncStream<Value>.Continuation] = [:]
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>

    /// A relay holding `initial`, with no observers.
    public init(_ initial: Value) {
        state = Mutex(State(value: initial))
    }

    deinit {
        // Ends every observer's loop; their termination handlers find nothing left to remove.
        let observers = state.withLock { state in
            defer { state.observers = [:] }
            return Array(state.observers.values)
        }
        for observer in observers { observer.finish() }
    }

    /// The value now.
    public var value: Value { state.withLock { $0.value } }

    /// Observers subscribed now.
    package var observerCount: Int { state.withLock { $0.observers.count } }

    /// Replaces the value and delivers it to every observer.
    public func send(_ value: Value) {
        state.withLock { state in
            state.value = value
            for observer in state.observers.values { observer.yield(value) }
        }
    }

    /// Sends `transform(value)` if `transform` returns one, atomically with
    /// reading the value (no other change can land in between).
    /// - Returns: whether a value was sent.
    @discardableResult
    public func send(ifChanging transform: (Value) -> Value?) -> Bool {
        state.withLock { state in
            guard let value = transform(state.value) else { return false }
            state.value = value
            for observer in state.observers.values { observer.yield(value) }
            return true
        }
    }

    /// The current value, then every later one, until the relay goes away or
    /// the consumer stops. Each call subscribes a new observer.
    public func values() -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .unbounded)
        let id = state.withLock { state in
            state.nextID += 1
            state.observers[state.nextID] = continuation
            continuation.yield(state.value)
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            self?.removeObserver(id)
        }
        return stream
    }

    private func removeObserver(_ id: UInt64) {
        _ = state.withLock { $0.observers.removeValue(forKey: id) }
    }
}
