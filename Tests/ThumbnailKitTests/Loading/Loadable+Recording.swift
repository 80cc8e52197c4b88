import ThumbnailKit

extension Loadable {
    /// Subscribes now and collects the states, the current one first, up to
    /// and including the first for which `isLast` holds.
    func recordStates(through isLast: @escaping @Sendable (LoadingState<Value>) -> Bool)
        -> Task<[LoadingState<Value>], Never> {
        record(state, through: isLast)
    }
}

private func record<Value>(_ states: AsyncStream<LoadingState<Value>>,
                           through isLast: @escaping @Sendable (LoadingState<Value>) -> Bool)
    -> Task<[LoadingState<Value>], Never> {
    Task {
        var recorded: [LoadingState<Value>] = []
        for await state in states {
            recorded.append(state)
            if isLast(state) { break }
        }
        return recorded
    }
}

extension LoadingState {
    /// Whether a load ended here: loaded or failed.
    var isSettled: Bool { phase == .loaded || phase == .failure }

    /// Whether this shows a cancelled load.
    var isCanceledLoad: Bool { progress?.isCanceled == true }

    /// The phase and its payload in one line, for comparing sequences:
    /// "idle", "loading", "loading(canceled)", "loading(waiting)",
    /// "loading(step 1, 50%)", "loaded(7)", "failure(boom)".
    var summary: String {
        switch self {
        case .idle:
            return "idle"
        case .loading(nil):
            return "loading"
        case let .loading(progress?):
            if progress.isCanceled { return "loading(canceled)" }
            let parts = [progress.message, progress.percent.map { "\($0)%" }].compactMap { $0 }
            return "loading(\(parts.joined(separator: ", ")))"
        case let .loaded(value):
            return "loaded(\(value))"
        case let .failure(error):
            return "failure(\(error))"
        }
    }
}
