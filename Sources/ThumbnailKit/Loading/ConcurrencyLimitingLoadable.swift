/// Bounds how many loads run at once: a ``Loadable`` around another one
/// that loads its base only inside a slot of a ``PriorityLimiter``. Loaders
/// that share a limiter share its limit (give every row of a list the same
/// limiter, and at most `limit` of them fetch at once).
///
/// A load shows `.loading(LoadingProgress(message: "waiting"))` from the
/// moment it is asked for, also briefly when a slot is free at once; then
/// `.loading(nil)` and the base's progress once it holds a slot; then the
/// base's outcome. Waiters are served by ``RequestPriority``, first come
/// first served within one, and waiting suspends a task, never a thread.
///
/// ``cancel()`` while queued leaves the queue at once without loading the
/// base; while the base loads it cancels the base, and the slot is freed
/// when the base's work has stopped. The wrapper owns its base: loading,
/// cancelling or resetting the base directly while the wrapper loads leaves
/// the wrapper showing the state the base ended in.
@MainActor public final class ConcurrencyLimitingLoadable<Base: Loadable>: Loadable {
    public typealias Value = Base.Value

    /// What a load shows while it waits for a slot.
    public static var waiting: LoadingProgress { LoadingProgress(message: "waiting") }

    /// The loader run inside a slot.
    public let base: Base
    /// The limiter whose slots this loader competes for, with every other loader given it.
    public let limiter: PriorityLimiter
    /// Where this loader's loads queue among waiters of other priorities.
    public let priority: RequestPriority
    private let lifecycle = LoadingLifecycle<Value>()
    private var relay: StateRelay<LoadingState<Value>> { lifecycle.relay }

    public var isCanceled: Bool { lifecycle.isCanceled }

    /// - Parameters:
    ///   - base: the loader to run inside a slot.
    ///   - limiter: shared by every loader that counts against the same limit.
    ///   - priority: the queue this loader's loads wait in. Default: `.normal`.
    public init(wrapping base: Base, limiter: PriorityLimiter, priority: RequestPriority = .normal) {
        self.base = base
        self.limiter = limiter
        self.priority = priority
    }

    public var state: AsyncStream<LoadingState<Value>> { relay.values() }

    public var currentState: LoadingState<Value> { relay.value }

    /// Observers subscribed to ``state`` now; one that stops is removed at once.
    public var observerCount: Int { relay.observerCount }

    public func load() async {
        await lifecycle.load(showing: .loading(Self.waiting)) { [self] in await loadInSlot() }
    }

    public func cancel() {
        // Cancelling the work takes it out of the limiter's queue if it waits there,
        // and stops copying the base's progress before the base shows its own cancellation.
        lifecycle.cancel { base.cancel() }
    }

    public func reset() {
        lifecycle.reset { base.reset() }
    }

    /// The base's outcome, loaded in a slot of the limiter; `nil` when cancelled.
    private func loadInSlot() async -> LoadingState<Value>? {
        do {
            return try await limiter.run(priority: priority) { @MainActor @Sendable in
                // The slot may come just after a cancel: give it back without loading.
                try Task.checkCancellation()
                relay.send(.loading(nil))
                return await base.load(forwardingProgressTo: relay)
            }
        } catch {
            // Only a cancellation throws, and cancel() or reset() has shown it.
            return nil
        }
    }
}
