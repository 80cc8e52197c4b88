/// A ``Loadable`` for subclasses to fill in: override ``fetch()``, and the
/// class keeps the state and the ``Loadable`` rules (one load at a time,
/// cancellation, reset, late observers).
///
/// A load shows `.loading(nil)` when it starts, then `.loaded(value)` or
/// `.failure(error)`. ``fetch()`` may report finer progress with
/// ``updateState(_:)``. The fetch runs in a task of its own, on the main
/// actor like the rest of the class (await work elsewhere for anything
/// heavy). ``cancel()`` and ``reset()`` cancel that task and take over the
/// state at once; whatever the fetch finishes with afterwards is dropped.
///
/// Holding a loader costs one ``StateRelay``; a load costs one task.
@MainActor open class BaseLoadable<Value: Sendable>: Loadable {
    private let relay = StateRelay<LoadingState<Value>>(.idle)
    /// The running load, `nil` between loads and from the moment it is cancelled.
    private var work: Task<Void, Never>?

    public private(set) var isCanceled = false

    public init() {}

    public var state: AsyncStream<LoadingState<Value>> { relay.values() }

    public var currentState: LoadingState<Value> { relay.value }

    /// Observers subscribed to ``state`` now; one that stops is removed at once.
    public var observerCount: Int { relay.observerCount }

    /// The work a load does. Called on the main actor, at most once at a time
    /// for the current load (a cancelled fetch may still be winding down
    /// while the next one runs). Check for cancellation after long steps:
    /// a fetch that ignores it only delays the return of ``load()``, never
    /// the state.
    ///
    /// Subclasses must override it; the default stops the program.
    open func fetch() async throws -> Value {
        preconditionFailure("\(type(of: self)) must override fetch(), BaseLoadable's subclass obligation")
    }

    /// Shows `state` while ``fetch()`` runs: progress, a message. Call it
    /// from inside ``fetch()``; a call from a fetch that was cancelled or
    /// reset (its task is cancelled) or from outside a load is ignored.
    public func updateState(_ state: LoadingState<Value>) {
        guard work != nil, !Task.isCancelled else { return }
        relay.send(state)
    }

    public func load() async {
        guard work == nil, currentState.value == nil else { return }
        isCanceled = false
        relay.send(.loading(nil))
        let work = Task {
            let outcome: LoadingState<Value>
            do {
                outcome = .loaded(try await fetch())
            } catch {
                outcome = .failure(error)
            }
            // Cancelled while fetch() was suspended: cancel() or reset() has
            // taken over the state, and `work` may already be the next load.
            guard !Task.isCancelled else { return }
            self.work = nil
            relay.send(outcome)
        }
        self.work = work
        await work.value
    }

    public func cancel() {
        guard let work else { return }
        work.cancel()
        self.work = nil
        isCanceled = true
        relay.send(.loading(.canceled))
    }

    public func reset() {
        work?.cancel()
        work = nil
        isCanceled = false
        relay.send(.idle)
    }
}
