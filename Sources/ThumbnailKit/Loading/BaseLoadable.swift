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
    private let lifecycle = LoadingLifecycle<Value>()

    public var isCanceled: Bool { lifecycle.isCanceled }

    /// A loader in the `idle` state, with no load running.
    public init() {}

    public var state: AsyncStream<LoadingState<Value>> { lifecycle.relay.values() }

    public var currentState: LoadingState<Value> { lifecycle.relay.value }

    /// Observers subscribed to ``state`` now; one that stops is removed at once.
    package var observerCount: Int { lifecycle.relay.observerCount }

    /// The work a load does. Called on the main actor, at most once at a time
    /// for the current load (a cancelled fetch may still be winding down
    /// while the next one runs). Check for cancellation after long steps:
    /// a fetch that ignores it only delays the return of `load()`, never
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
        guard lifecycle.isRunning, !Task.isCancelled else { return }
        lifecycle.relay.send(state)
    }

    public func load() async {
        await lifecycle.load(showing: .loading(nil)) { [self] _ in
            do {
                return .loaded(try await fetch())
            } catch {
                return .failure(error)
            }
        }
    }

    public func cancel() {
        lifecycle.cancel()
    }

    public func reset() {
        lifecycle.reset()
    }
}
