/// The part every ``Loadable`` here shares: the state, the running work and
/// the rules (one load at a time, a loaded value kept, `cancel()` shown as
/// `.loading(.canceled)`, `reset()` back to `idle`, nothing from cancelled
/// work reaching the state). Each loader supplies only its work.
///
/// The one guard against stale states is the generation: every start,
/// cancel, reset and abandon moves it on, and a load may change the state
/// only while its ``Load`` is the current generation. A cancelled task is no
/// such guard: work that does not look at cancellation (a memory cache) still
/// completes, and progress relayed through a task of its own arrives late.
@MainActor final class LoadingLifecycle<Value: Sendable> {
    /// Which load a state comes from; its states land only while it is current.
    struct Load: Equatable, Sendable {
        fileprivate let generation: UInt64
    }

    let relay = StateRelay<LoadingState<Value>>(.idle)
    /// The running load, `nil` between loads and from the moment it is cancelled.
    private(set) var work: Task<Void, Never>?
    private var generation: UInt64 = 0
    private(set) var isCanceled = false

    /// Whether a load is running and not cancelled.
    var isRunning: Bool { work != nil }

    /// Runs `body` unless a load is running or a value is loaded, showing
    /// `start` first (if any) and then what `body` returns; returns when it
    /// has finished. `body` returns `nil` when it was cancelled.
    func load(showing start: LoadingState<Value>?,
              _ body: @escaping @MainActor (Load) async -> LoadingState<Value>?) async {
        guard relay.value.value == nil else { return }
        await self.start(showing: start, body)?.value
    }

    /// Starts `body` unless a load is running, whatever the state shows (a
    /// row's new request replaces its loaded image), without waiting for it.
    /// - Returns: the running work, `nil` when nothing was started.
    @discardableResult
    func start(showing start: LoadingState<Value>?,
               _ body: @escaping @MainActor (Load) async -> LoadingState<Value>?) -> Task<Void, Never>? {
        guard work == nil else { return nil }
        generation &+= 1
        let load = Load(generation: generation)
        isCanceled = false
        if let start { relay.send(start) }
        let work = Task { @MainActor in
            // `nil`: cancel() or reset() has taken over the state.
            guard let outcome = await body(load), self.isCurrent(load) else { return }
            self.work = nil
            self.relay.send(outcome)
        }
        self.work = work
        return work
    }

    /// Shows `state` if `load` is still the current load: progress relayed
    /// from a load's work.
    func send(_ state: LoadingState<Value>, from load: Load) {
        guard isCurrent(load) else { return }
        relay.send(state)
    }

    /// Shows `transform(state)` if `load` is still current and `transform`
    /// returns one, atomically with reading the state.
    func send(ifChanging transform: (LoadingState<Value>) -> LoadingState<Value>?, from load: Load) {
        guard isCurrent(load) else { return }
        relay.send(ifChanging: transform)
    }

    /// Whether `load` is the load whose states may land now.
    func isCurrent(_ load: Load) -> Bool {
        load.generation == generation && work != nil
    }

    /// Cancels the running load (and, through `alsoCancel`, what it wraps) and
    /// shows it as cancelled; does nothing when no load is running.
    func cancel(_ alsoCancel: () -> Void = {}) {
        guard work != nil else { return }
        // Before the wrapped loader's cancel, so its `.loading(.canceled)` is not copied as progress.
        abandon()
        alsoCancel()
        isCanceled = true
        relay.send(.loading(.canceled))
    }

    /// Cancels any running load (and, through `alsoReset`, what it wraps) and returns to `idle`.
    func reset(_ alsoReset: () -> Void = {}) {
        abandon()
        alsoReset()
        isCanceled = false
        relay.send(.idle)
    }

    /// Cancels any running load and leaves the state to the caller, who shows
    /// what replaces it (a value at hand, the next load).
    func abandon() {
        generation &+= 1
        work?.cancel()
        work = nil
    }
}
