import Synchronization

/// Delivers events about a key to every caller that asked to hear about it:
/// one download's progress reaches all the rows waiting for that image.
final class ProgressRelay<Key: Hashable & Sendable, Event: Sendable>: Sendable {
    typealias Listener = @Sendable (Event) -> Void

    private let listeners = Mutex<(next: UInt64, byKey: [Key: [UInt64: Listener]])>((0, [:]))

    /// Calls `listener` with each event for `key` until `body` returns.
    func listening<Result>(to key: Key, with listener: Listener?,
                           during body: () async throws -> Result) async rethrows -> Result {
        guard let listener else { return try await body() }
        let id = listeners.withLock { state in
            state.next += 1
            state.byKey[key, default: [:]][state.next] = listener
            return state.next
        }
        defer {
            listeners.withLock { state in
                state.byKey[key]?[id] = nil
                if state.byKey[key]?.isEmpty == true { state.byKey[key] = nil }
            }
        }
        return try await body()
    }

    /// Sends `event` to the listeners of `key`, in the order they subscribed.
    func emit(_ event: Event, for key: Key) {
        let targets = listeners.withLock { state in
            (state.byKey[key] ?? [:]).sorted { $0.key < $1.key }.map(\.value)
        }
        for listener in targets { listener(event) }
    }
}
