/// The part every ``Loadable`` here shares: the state, the running work and
/// the rules (one load at a time, a loaded value kept, `cancel()` shown as
/// `.loading(.canceled)`, `reset()` back to `idle`, nothing from cancelled
/// work reaching the state). Each loader supplies only its work.
@MainActor final class LoadingLifecycle<Value: Sendable> {
    let relay = StateRelay<LoadingState<Value>>(.idle)
    /// The running load, `nil` between loads and from the moment it is cancelled.
    private var work: Task<Void, Never>?
    private(set) var isCanceled = false

    /// Whether a load is running and not cancelled.
    var isRunning: Bool { work != nil }

    /// Runs `body` unless a load is running or a value is loaded, showing
    /// `start` first (if any) and then what `body` returns; returns when it
    /// has finished. `body` returns `nil` when it was cancelled.
    func load(showing start: LoadingState<Value>?,
              _ body: @escaping @MainActor () async -> LoadingState<Value>?) async {
        guard work == nil, relay.value.value == nil else { return }
        isCanceled = false
        if let start { relay.send(start) }
        let work = Task { @MainActor in
            let outcome = await body()
            // Cancelled while it ran: cancel() or reset() has taken over the
            // state, and `work` may already be the next load.
            guard !Task.isCancelled, let outcome else { return }
            self.work = nil
            self.relay.send(outcome)
        }
        self.work = work
        await work.value
    }

    /// Cancels the running load (and, through `alsoCancel`, what it wraps) and
    /// shows it as cancelled; does nothing when no load is running.
    func cancel(_ alsoCancel: () -> Void = {}) {
        guard let work else { return }
        // Before the wrapped loader's cancel, so its `.loading(.canceled)` is not copied as progress.
        work.cancel()
        self.work = nil
        alsoCancel()
        isCanceled = true
        relay.send(.loading(.canceled))
    }

    /// Cancels any running load (and, through `alsoReset`, what it wraps) and returns to `idle`.
    func reset(_ alsoReset: () -> Void = {}) {
        work?.cancel()
        work = nil
        alsoReset()
        isCanceled = false
        relay.send(.idle)
    }
}
