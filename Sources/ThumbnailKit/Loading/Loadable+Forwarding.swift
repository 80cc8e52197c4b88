extension Loadable {
    /// Loads this (wrapped) loader and shows its progress as the wrapper's
    /// `load` while that load is current; returns the state the load ended in, for
    /// the wrapper to decide what to show next.
    ///
    /// Copies only the `loading` states this load shows: not the state the
    /// base was in before (a cancellation from an earlier load), not the
    /// outcome (the wrapper's to show), and not one equal to what the relay
    /// shows (a wrapper that has shown `.loading(nil)` does not show it twice).
    /// The copying runs in a child task on the main actor, so cancelling the
    /// caller's task (cancel() does, on the main actor) stops it before the
    /// base's own `.loading(.canceled)` comes through. Progress the base shows
    /// just before it finishes may be skipped; the outcome replaces it anyway.
    func load(forwardingProgressTo lifecycle: LoadingLifecycle<Value>,
              as load: LoadingLifecycle<Value>.Load) async -> LoadingState<Value> {
        // Subscribed before the load starts, so the load's first states are in the stream.
        let states = state.dropFirst()
        await withDiscardingTaskGroup { group in
            group.addTask { await forwardProgress(from: states, to: lifecycle, as: load) }
            await self.load()
            group.cancelAll()
        }
        return currentState
    }
}

@MainActor private func forwardProgress<Value>(from states: AsyncDropFirstSequence<AsyncStream<LoadingState<Value>>>,
                                               to lifecycle: LoadingLifecycle<Value>,
                                               as load: LoadingLifecycle<Value>.Load) async {
    for await state in states {
        guard !Task.isCancelled else { return }
        guard case let .loading(progress) = state else { continue }
        lifecycle.send(ifChanging: { shown in
            if case let .loading(shownProgress) = shown, shownProgress == progress { return nil }
            return state
        }, from: load)
    }
}
