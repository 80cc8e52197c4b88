/// Where a load stands: what a row or view shows at each moment.
public enum LoadingState<Value: Sendable>: Sendable {
    /// Nothing asked for yet, or reset.
    case idle
    /// Under way; progress when the loader knows it (`nil`: an indeterminate spinner).
    case loading(LoadingProgress?)
    /// Finished with a value.
    case loaded(Value)
    /// Finished with an error (cancellation shows as `loading` with ``LoadingProgress/isCanceled``, not here).
    case failure(any Error)

    /// The value when ``loaded(_:)``.
    public var value: Value? {
        if case let .loaded(value) = self { return value }
        return nil
    }

    /// The error when ``failure(_:)``.
    public var error: (any Error)? {
        if case let .failure(error) = self { return error }
        return nil
    }

    /// The progress when ``loading(_:)`` with progress.
    public var progress: LoadingProgress? {
        if case let .loading(progress) = self { return progress }
        return nil
    }

    /// Whether a load is under way.
    public var isLoading: Bool {
        if case .loading = self { return true }
        return false
    }

    /// Whether nothing has been asked for.
    public var isIdle: Bool {
        if case .idle = self { return true }
        return false
    }

    /// The case without its payload: for comparisons in tests and for views
    /// that only switch on the kind of state.
    public var phase: LoadingPhase {
        switch self {
        case .idle: .idle
        case .loading: .loading
        case .loaded: .loaded
        case .failure: .failure
        }
    }
}

/// The four cases of ``LoadingState`` without payloads.
public enum LoadingPhase: Sendable, Hashable {
    /// The ``LoadingState`` case of the same name, payload dropped: ``LoadingState/idle``,
    /// ``LoadingState/loading(_:)`` (a cancelled load too), ``LoadingState/loaded(_:)`` or ``LoadingState/failure(_:)``.
    case idle, loading, loaded, failure
}
