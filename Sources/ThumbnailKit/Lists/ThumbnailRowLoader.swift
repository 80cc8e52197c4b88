/// The thumbnail of one list row, loaded by a task the row owns.
///
/// A row object is reused as a list scrolls. It starts its own loading task in
/// ``load(_:)`` and cancels it in ``prepareForReuse()`` or when a different
/// request replaces it, so a completion meant for an earlier request can never
/// land: every state change of a load is checked against the load that is
/// current, on the main actor, where reuse happens too.
///
/// `@MainActor`, not an actor of its own: list frameworks configure and reuse
/// rows on the main actor with synchronous calls, and a synchronous
/// `prepareForReuse()` is what makes the guarantee simple. With an actor, reuse
/// would need an `await`, and a completion could slip in between the scroll and
/// the reset. The work itself (download, decode) runs off the main actor in the
/// pipeline; only state changes come here.
///
/// ```swift
/// row.load(ThumbnailRequest(url: item.imageURL, priority: .visible))
/// for await state in row.state { draw(state) }   // .loading(12 %) … .loaded(thumbnail)
/// row.prepareForReuse()                            // scrolled away: cancelled, idle
/// ```
@MainActor public final class ThumbnailRowLoader {
    private let pipeline: ThumbnailPipeline
    private let relay = StateRelay<LoadingState<Thumbnail>>(.idle)
    private var loadingTask: Task<Void, Never>?
    /// Counts loads; a load may change the state only while it is the current one.
    private var generation: UInt64 = 0

    /// The request the row shows or is loading; `nil` after ``prepareForReuse()``.
    public private(set) var request: ThumbnailRequest?

    public init(pipeline: ThumbnailPipeline) {
        self.pipeline = pipeline
    }

    /// A row that goes away stops its load: a discarded list downloads nothing more.
    isolated deinit {
        loadingTask?.cancel()
    }

    /// The state now, then every change: `idle`, `loading` with progress (percent
    /// while bytes arrive, a message while the pipeline waits to retry), then
    /// `loaded` or `failure`. Each access subscribes a new observer.
    public var state: AsyncStream<LoadingState<Thumbnail>> { relay.values() }

    /// The state now.
    public var currentState: LoadingState<Thumbnail> { relay.value }

    /// Starts loading `request`, cancelling whatever the row was loading.
    ///
    /// Loading the request the row already shows or is loading does nothing (no
    /// flicker, no second fetch). A thumbnail in the pipeline's memory cache is
    /// shown at once, without a `loading` state in between.
    public func load(_ request: ThumbnailRequest) {
        if let current = self.request, current.key == request.key, current.cachePolicy == request.cachePolicy,
           currentState.isLoading || currentState.value != nil {
            return
        }
        cancelCurrentLoad()
        self.request = request
        if let cached = pipeline.cachedThumbnail(for: request) {
            relay.send(.loaded(cached))
        } else {
            start(request)
        }
    }

    /// Loads the current request again after a failure (the front end binds
    /// this to a key or a button). Does nothing in any other state.
    public func retry() {
        guard case .failure = currentState, let request else { return }
        cancelCurrentLoad()
        start(request)
    }

    /// Makes the row ready to show another item: cancels its load, forgets the
    /// request and the image, and returns to `idle`.
    public func prepareForReuse() {
        cancelCurrentLoad()
        request = nil
        relay.send(.idle)
    }

    /// Returns when the current load has finished (loaded, failed or cancelled);
    /// at once when nothing is loading. Tests await this instead of hooks.
    public func waitForLoadingToComplete() async {
        await loadingTask?.value
    }

    private func cancelCurrentLoad() {
        generation &+= 1
        loadingTask?.cancel()
        loadingTask = nil
    }

    private func start(_ request: ThumbnailRequest) {
        generation &+= 1
        let load = generation
        relay.send(.loading(nil))
        loadingTask = Task { [weak self, pipeline] in
            // Progress arrives on the pipeline's threads; a stream keeps it in order on its way here.
            let (events, sink) = AsyncStream.makeStream(of: ThumbnailProgress.self, bufferingPolicy: .bufferingNewest(64))
            let progress = Task { @MainActor [weak self] in
                for await event in events { self?.apply(.loading(LoadingProgress(event)), from: load) }
            }
            let outcome = await Self.outcome(of: request, from: pipeline, progress: sink)
            sink.finish()
            await progress.value  // every progress event lands before the outcome
            if let outcome { self?.apply(outcome, from: load) }
        }
    }

    /// `loaded` or `failure`; `nil` when cancelled (reuse or a newer load did it, and the state is theirs).
    private nonisolated static func outcome(of request: ThumbnailRequest, from pipeline: ThumbnailPipeline,
                                            progress: AsyncStream<ThumbnailProgress>.Continuation) async -> LoadingState<Thumbnail>? {
        do {
            return .loaded(try await pipeline.thumbnail(for: request) { progress.yield($0) })
        } catch is CancellationError {
            return nil
        } catch {
            return .failure(error)
        }
    }

    /// The one guard against stale states. A cancelled load's task is no
    /// guard: its progress arrives through a task of its own, and the memory
    /// cache answers it without looking at cancellation. Every cancel moves
    /// the generation on, so this check covers both.
    private func apply(_ state: LoadingState<Thumbnail>, from load: UInt64) {
        guard load == generation else { return }
        relay.send(state)
    }
}
