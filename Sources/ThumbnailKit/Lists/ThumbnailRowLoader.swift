/// The thumbnail of one list row: a ``Loadable`` whose request changes as
/// the row is reused, loaded by a task the row owns.
///
/// A row object is reused as a list scrolls. ``load(_:)`` starts loading a
/// request and cancels whatever the row was loading; ``prepareForReuse()``
/// cancels it too. A completion or progress meant for an earlier request can
/// never land: the row runs on the same lifecycle as every ``Loadable`` here,
/// whose generation check admits a load's states only while it is current,
/// on the main actor, where reuse happens too.
///
/// `@MainActor`, not an actor of its own: list frameworks configure and reuse
/// rows on the main actor with synchronous calls, and a synchronous
/// `prepareForReuse()` is what makes the guarantee simple. With an actor, reuse
/// would need an `await`, and a completion could slip in between the scroll and
/// the reset. The work itself (download, decode) runs off the main actor in the
/// provider; only state changes come here.
///
/// ```swift
/// row.load(ThumbnailRequest(url: item.imageURL, priority: .visible))
/// for await state in row.state { draw(state) }   // .loading(12 %) … .loaded(thumbnail)
/// row.prepareForReuse()                            // scrolled away: cancelled, idle
/// ```
@MainActor public final class ThumbnailRowLoader: Loadable, ReusableContent {
    /// A row loads a ``Thumbnail``.
    public typealias Value = Thumbnail

    private let provider: any ThumbnailProviding
    private let lifecycle = LoadingLifecycle<Thumbnail>()

    /// The request the row shows or is loading; `nil` after ``prepareForReuse()``.
    public private(set) var request: ThumbnailRequest?

    /// - Parameter provider: where thumbnails come from (a ``ThumbnailPipeline``).
    public init(provider: any ThumbnailProviding) {
        self.provider = provider
    }

    /// A row that goes away stops its load: a discarded list downloads nothing more.
    isolated deinit {
        lifecycle.abandon()
    }

    /// The state now, then every change: `idle`, `loading` with progress (percent
    /// while bytes arrive, a message while the provider waits to retry), then
    /// `loaded` or `failure`. Each access subscribes a new observer.
    public var state: AsyncStream<LoadingState<Thumbnail>> { lifecycle.relay.values() }

    /// The state now.
    public var currentState: LoadingState<Thumbnail> { lifecycle.relay.value }

    public var isCanceled: Bool { lifecycle.isCanceled }

    /// Starts loading `request`, cancelling whatever the row was loading.
    ///
    /// Loading the request the row already shows or is loading does nothing (no
    /// flicker, no second fetch). A thumbnail the provider has at hand (its
    /// memory cache) is shown at once, without a `loading` state in between.
    public func load(_ request: ThumbnailRequest) {
        if let current = self.request, current.key == request.key, current.cachePolicy == request.cachePolicy,
           lifecycle.isRunning || currentState.value != nil {
            return
        }
        lifecycle.abandon()
        self.request = request
        if let cached = provider.cachedThumbnail(for: request) {
            lifecycle.relay.send(.loaded(cached))
        } else {
            start(request)
        }
    }

    /// Loads the current request, as ``Loadable`` does: nothing while a load
    /// runs or once loaded, and nothing without a request.
    public func load() async {
        guard let request, !lifecycle.isRunning, currentState.value == nil else { return }
        if let cached = provider.cachedThumbnail(for: request) {
            lifecycle.relay.send(.loaded(cached))
        } else {
            await start(request)?.value
        }
    }

    /// Loads the current request again after a failure (the front end binds
    /// this to a key or a button). Does nothing in any other state.
    public func retry() {
        guard case .failure = currentState, let request else { return }
        start(request)
    }

    /// Cancels the running load and shows it as cancelled; the request stays,
    /// for ``load()`` to load again.
    public func cancel() {
        lifecycle.cancel()
    }

    /// Cancels any running load and returns to `idle`; the request stays.
    public func reset() {
        lifecycle.reset()
    }

    /// Makes the row ready to show another item: cancels its load, forgets the
    /// request and the image, and returns to `idle`.
    public func prepareForReuse() {
        reset()
        request = nil
    }

    /// Returns when the current load has finished (loaded, failed or cancelled);
    /// at once when nothing is loading. Tests await this instead of hooks.
    public func waitForLoadingToComplete() async {
        await lifecycle.work?.value
    }

    @discardableResult
    private func start(_ request: ThumbnailRequest) -> Task<Void, Never>? {
        lifecycle.start(showing: .loading(nil)) { [weak self, provider] load in
            // Progress arrives on the provider's threads; a stream keeps it in order on its way here.
            let (events, sink) = AsyncStream.makeStream(of: ThumbnailProgress.self, bufferingPolicy: .bufferingNewest(64))
            let progress = Task { @MainActor [weak self] in
                for await event in events { self?.lifecycle.send(.loading(LoadingProgress(event)), from: load) }
            }
            let outcome = await Self.outcome(of: request, from: provider, progress: sink)
            sink.finish()
            await progress.value  // every progress event lands before the outcome
            return outcome
        }
    }

    /// `loaded` or `failure`; `nil` when cancelled (reuse or a newer load did it, and the state is theirs).
    private nonisolated static func outcome(of request: ThumbnailRequest, from provider: any ThumbnailProviding,
                                            progress: AsyncStream<ThumbnailProgress>.Continuation) async -> LoadingState<Thumbnail>? {
        do {
            return .loaded(try await provider.thumbnail(for: request) { progress.yield($0) })
        } catch {
            // The pipeline's cancelled kind, or a plain CancellationError from another provider.
            return ThumbnailError.isCancellation(error) ? nil : .failure(error)
        }
    }
}
