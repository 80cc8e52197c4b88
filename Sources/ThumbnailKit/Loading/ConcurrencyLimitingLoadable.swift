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
    /// The wrapped loader's value.
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

    /// A loader with a limiter of its own, of `concurrencyLimit` slots, as
    /// the seed spells it.
    ///
    /// A loader runs one load at a time, so a limiter of its own bounds
    /// nothing by itself: to bound a list, pass this loader's ``limiter`` to
    /// the others (`init(wrapping:limiter:priority:)`). Do not stack it on a
    /// ``ThumbnailPipeline``: the pipeline already limits its downloads and
    /// decodes by priority, and a second limit in front only delays rows.
    public convenience init(wrapping base: Base, concurrencyLimit: Int, priority: RequestPriority = .normal) {
        self.init(wrapping: base, limiter: PriorityLimiter(limit: concurrencyLimit), priority: priority)
    }

    public var state: AsyncStream<LoadingState<Value>> { lifecycle.relay.values() }

    public var currentState: LoadingState<Value> { lifecycle.relay.value }

    /// Observers subscribed to ``state`` now; one that stops is removed at once.
    package var observerCount: Int { lifecycle.relay.observerCount }

    public func load() async {
        await lifecycle.load(showing: .loading(Self.waiting)) { [self] load in await loadInSlot(as: load) }
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
    private func loadInSlot(as load: LoadingLifecycle<Value>.Load) async -> LoadingState<Value>? {
        do {
            return try await limiter.run(priority: priority) { @MainActor @Sendable in
                // The slot may come just after a cancel: give it back without loading.
                try Task.checkCancellation()
                lifecycle.send(.loading(nil), from: load)
                return await base.load(forwardingProgressTo: lifecycle, as: load)
            }
        } catch {
            // Only a cancellation throws, and cancel() or reset() has shown it.
            return nil
        }
    }
}
