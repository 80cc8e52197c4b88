/// Watches state streams (a ``ThumbnailKit/Loadable``'s `state`) and calls
/// back on every state they deliver, on the main actor: how a front end
/// learns that it has something new to draw.
///
/// Each object is observed once, however often it is handed in, for as long
/// as its stream runs or the observer lives. Objects are told apart by
/// identity, so hand in ones that live as long as the observer (a list's
/// pooled cells, a screen's loader), whose address no newcomer can take.
@MainActor package final class StateObserver {
    private var observations: [ObjectIdentifier: Task<Void, Never>] = [:]

    package init() {}

    isolated deinit {
        for observation in observations.values { observation.cancel() }
    }

    /// Calls `onChange` with every state of `object` from now on, the current
    /// one first; does nothing if `object` is already observed (the stream is
    /// then not even subscribed).
    package func observe<State: Sendable>(_ object: AnyObject, states: () -> AsyncStream<State>,
                                         onChange: @escaping @MainActor (State) -> Void) {
        let id = ObjectIdentifier(object)
        guard observations[id] == nil else { return }
        let stream = states()
        observations[id] = Task {
            for await state in stream { onChange(state) }
        }
    }

    /// Objects observed so far.
    package var count: Int { observations.count }
}
