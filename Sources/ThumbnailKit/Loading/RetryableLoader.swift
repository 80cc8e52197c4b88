/// Tries a failed load again: a ``Loadable`` around another one that, when
/// the base fails, waits for the ``RetryPolicy``'s backoff, resets the base
/// and loads it again, up to the policy's maximum attempts.
///
/// Shows `.loading(nil)` at the start of every attempt and the base's
/// progress while it runs; while a retry waits,
/// `.loading(LoadingProgress(message: "retrying in 0.5 s (attempt 2 of 3)"))`
/// (the attempt about to start). Ends in the base's value, or in the last
/// attempt's error. Every failure counts: the base's errors carry no status
/// to tell transient from permanent (``RetryPolicy/isTransient(status:)``
/// is for the pipeline's HTTP failures).
///
/// ``cancel()`` during a backoff wait stops at once, without another
/// attempt; during an attempt it cancels the base. The wrapper owns its
/// base: loading, cancelling or resetting the base directly while the
/// wrapper loads leaves the wrapper showing the state the base ended in.
@MainActor public final class RetryableLoader<Base: Loadable>: Loadable {
    public typealias Value = Base.Value

    /// The loader tried again.
    public let base: Base
    /// How many attempts, and how long to wait between them.
    public let policy: RetryPolicy
    private let lifecycle = LoadingLifecycle<Value>()
    private var relay: StateRelay<LoadingState<Value>> { lifecycle.relay }

    public var isCanceled: Bool { lifecycle.isCanceled }

    /// - Parameters:
    ///   - base: the loader to try; reset before every attempt after the first.
    ///   - policy: the attempts (the first included) and backoff between them.
    public init(base: Base, policy: RetryPolicy) {
        self.base = base
        self.policy = policy
    }

    /// Up to `maxAttempts` tries in total, with ``RetryPolicy``'s default
    /// backoff: 250 ms doubling up to 8 s, ± 25 %.
    public convenience init(base: Base, maxAttempts: Int) {
        self.init(base: base, policy: RetryPolicy(maximumAttempts: maxAttempts))
    }

    public var state: AsyncStream<LoadingState<Value>> { relay.values() }

    public var currentState: LoadingState<Value> { relay.value }

    /// Observers subscribed to ``state`` now; one that stops is removed at once.
    public var observerCount: Int { relay.observerCount }

    public func load() async {
        await lifecycle.load(showing: nil) { [self] in await runAttempts() }
    }

    public func cancel() {
        lifecycle.cancel { base.cancel() }
    }

    public func reset() {
        lifecycle.reset { base.reset() }
    }

    /// The last attempt's outcome; `nil` when cancelled. Each `Task.isCancelled`
    /// check follows a suspension: cancel() or reset() may have taken over the
    /// state while this task waited.
    private func runAttempts() async -> LoadingState<Value>? {
        var attempt = 1
        while true {
            relay.send(.loading(nil))
            let outcome = await base.load(forwardingProgressTo: relay)
            guard !Task.isCancelled else { return nil }
            guard outcome.error != nil, let delay = policy.delay(afterAttempt: attempt) else { return outcome }
            attempt += 1
            relay.send(.loading(LoadingProgress(message: Self.retryMessage(after: delay, attempt: attempt,
                                                                            of: policy.maximumAttempts))))
            do {
                try await Task.sleep(for: delay)
            } catch {
                return nil
            }
            base.reset()
        }
    }

    /// "retrying in 0.5 s (attempt 2 of 3)": the wait to a tenth of a second.
    private static func retryMessage(after delay: Duration, attempt: Int, of maximum: Int) -> String {
        "retrying in \(delay.secondsToTenths) s (attempt \(attempt) of \(maximum))"
    }
}
