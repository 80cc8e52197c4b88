/// Collapses bursts of ``load()`` calls (fast scrolling, typing) into one
/// load of a wrapped ``Loadable``: the base is loaded once the calls have
/// paused for `interval`.
///
/// Each call cancels the pending wait and starts a new one (cancel and
/// replace): the call it replaces returns at once, and the call whose wait
/// runs out loads the base and returns when the base's load has finished.
/// With `executeFirstImmediately`, the first call of a burst (no call in the
/// `interval` before it) loads the base at once, and later calls of the
/// burst collapse into one trailing load after the pause.
///
/// Only the calls are debounced, not the base's states: ``state``,
/// ``currentState`` and ``isCanceled`` are the base's own, so the base's
/// rules apply when a load reaches it (a loaded base keeps its value; a base
/// still loading ignores the trailing call). A pending wait shows nothing.
///
/// Costs one sleeping task while a call waits for the pause.
@MainActor public final class DebouncingLoadable<Base: Loadable>: Loadable {
    /// The wrapped loader's value.
    public typealias Value = Base.Value

    /// The loader loaded once a burst of calls has paused.
    public let base: Base
    /// How long calls must pause before the base is loaded.
    public let interval: Duration
    /// Whether the first call of a burst loads the base at once.
    public let executeFirstImmediately: Bool
    /// The wait of the latest call, `nil` when none is pending.
    private var pendingWait: Task<Void, any Error>?
    /// When the latest call came, to tell the first call of a burst.
    private var lastCall: ContinuousClock.Instant?

    /// - Parameters:
    ///   - base: the loader to load.
    ///   - interval: the pause that ends a burst of calls.
    ///   - executeFirstImmediately: whether the first call of a burst loads at
    ///     once instead of waiting. Default: `false`, one load after the pause.
    public init(wrapping base: Base, interval: Duration, executeFirstImmediately: Bool = false) {
        self.base = base
        self.interval = interval
        self.executeFirstImmediately = executeFirstImmediately
    }

    /// The seed's spelling: `debounceInterval` in seconds (`0.5`).
    public convenience init(wrapping base: Base, debounceInterval: Double, executeFirstImmediately: Bool = false) {
        self.init(wrapping: base, interval: .seconds(debounceInterval),
                  executeFirstImmediately: executeFirstImmediately)
    }

    /// The base's states.
    public var state: AsyncStream<LoadingState<Value>> { base.state }

    public var currentState: LoadingState<Value> { base.currentState }

    public var isCanceled: Bool { base.isCanceled }

    public func load() async {
        let now = ContinuousClock.now
        let startsBurst = lastCall.map { now - $0 >= interval } ?? true
        lastCall = now
        pendingWait?.cancel()
        pendingWait = nil
        if executeFirstImmediately && startsBurst {
            await base.load()
            return
        }
        let wait = Task { try await Task.sleep(for: interval) }
        pendingWait = wait
        _ = await wait.result
        // A later call, cancel() or reset() has replaced or dropped this wait
        // (ending it early), even one that ran out just before this resumed.
        guard pendingWait == wait else { return }
        pendingWait = nil
        await base.load()
    }

    /// Drops the pending wait and cancels the base's load.
    public func cancel() {
        pendingWait?.cancel()
        pendingWait = nil
        base.cancel()
    }

    /// Drops the pending wait, ends the burst and resets the base.
    public func reset() {
        pendingWait?.cancel()
        pendingWait = nil
        lastCall = nil
        base.reset()
    }
}
