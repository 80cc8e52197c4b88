/// Tries a failed load again: a ``Loadable`` around another one that, when
/// the base fails, waits for the ``RetryPolicy``'s backoff, resets the base
/// and loads it again, up to the policy's maximum attempts.
///
/// Shows `.loading(nil)` at the start of every attempt and the base's
/// progress while it runs; while a retry waits,
/// `.loading(LoadingProgress(message: "retrying in 0.5 s (attempt 2 of 3)"))`
/// (the attempt about to start). Ends in the base's value, in the last
/// attempt's error, or in the first error ``shouldRetry`` turns down (by
/// default a permanent one: a 404, a corrupt image).
///
/// Around a ``ThumbnailPipeline`` (a row's load, a feed's), the pipeline has
/// already retried transient failures by its own ``RetryPolicy`` before this
/// loader sees one: keep this loader for what a user asks to try again (the
/// `r` key), or give it few attempts, since each of its attempts multiplies
/// the pipeline's.
///
/// ``cancel()`` during a backoff wait stops at once, without another
/// attempt; during an attempt it cancels the base. The wrapper owns its
/// base: loading, cancelling or resetting the base directly while the
/// wrapper loads leaves the wrapper showing the state the base ended in.
@MainActor public final class RetryableLoader<Base: Loadable>: Loadable {
    /// The wrapped loader's value.
    public typealias Value = Base.Value

    /// The loader tried again.
    public let base: Base
    /// How many attempts, and how long to wait between them.
    public let policy: RetryPolicy
    /// Whether a failure is worth another attempt.
    public let shouldRetry: @MainActor (any Error) -> Bool
    private let lifecycle = LoadingLifecycle<Value>()

    public var isCanceled: Bool { lifecycle.isCanceled }

    /// - Parameters:
    ///   - base: the loader to try; reset before every attempt after the first.
    ///   - policy: the attempts (the first included) and backoff between them.
    ///   - shouldRetry: whether a failure is worth another attempt. Default:
    ///     ``isWorthRetrying(_:)``, which gives up at once on a 404 or a corrupt image.
    public init(base: Base, policy: RetryPolicy,
                shouldRetry: @escaping @MainActor (any Error) -> Bool = RetryableLoader.isWorthRetrying) {
        self.base = base
        self.policy = policy
        self.shouldRetry = shouldRetry
    }

    /// Up to `maxAttempts` tries in total, with ``RetryPolicy``'s default
    /// backoff: 250 ms doubling up to 8 s, ± 25 %.
    public convenience init(base: Base, maxAttempts: Int,
                            shouldRetry: @escaping @MainActor (any Error) -> Bool = RetryableLoader.isWorthRetrying) {
        self.init(base: base, policy: RetryPolicy(maximumAttempts: maxAttempts), shouldRetry: shouldRetry)
    }

    /// The default classification: a ``DataLoadingError`` is retried only when
    /// it is transient (a 503, a dropped connection, not a 404); a
    /// ``ThumbnailDecodingError`` never is (a corrupt image stays corrupt);
    /// any other error is, as the loader cannot tell. A ``ThumbnailError`` is
    /// judged by its underlying error.
    public static func isWorthRetrying(_ error: any Error) -> Bool {
        switch error {
        case let error as ThumbnailError: isWorthRetrying(error.underlying)
        case let error as DataLoadingError: error.isTransient
        case is ThumbnailDecodingError: false
        default: true
        }
    }

    public var state: AsyncStream<LoadingState<Value>> { lifecycle.relay.values() }

    public var currentState: LoadingState<Value> { lifecycle.relay.value }

    /// Observers subscribed to ``state`` now; one that stops is removed at once.
    package var observerCount: Int { lifecycle.relay.observerCount }

    public func load() async {
        await lifecycle.load(showing: nil) { [self] load in await runAttempts(as: load) }
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
    private func runAttempts(as load: LoadingLifecycle<Value>.Load) async -> LoadingState<Value>? {
        var attempt = 1
        while true {
            lifecycle.send(.loading(nil), from: load)
            let outcome = await base.load(forwardingProgressTo: lifecycle, as: load)
            guard !Task.isCancelled else { return nil }
            guard let error = outcome.error, shouldRetry(error),
                  let delay = policy.delay(afterAttempt: attempt) else { return outcome }
            attempt += 1
            lifecycle.send(.loading(LoadingProgress(message: Self.retryMessage(after: delay, attempt: attempt,
                                                                                of: policy.maximumAttempts))),
                           from: load)
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
