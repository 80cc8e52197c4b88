/// Something a view loads and then shows: a thumbnail, a page of results. It
/// publishes where it stands as a ``LoadingState`` and reacts to three
/// triggers a view calls synchronously or from its task.
///
/// Every implementation follows the same rules, so wrappers can be stacked
/// (`RetryableLoader(base: ConcurrencyLimitingLoadable(wrapping: …))`):
///
/// - ``load()`` while a load is running is ignored: it returns at once and
///   starts nothing (a second tap, a view appearing twice).
/// - ``load()`` when the state is `loaded` does nothing: the value is kept.
///   ``reset()`` then ``load()`` loads again. From `idle`, `failure` or
///   cancelled, ``load()`` starts a new load and returns when that load has
///   finished: loaded, failed or cancelled. Cancelling the task that awaits
///   ``load()`` does not cancel the load (a view that disappears keeps it
///   going for when it comes back); ``cancel()`` does.
/// - ``cancel()`` cancels the running work: the state becomes
///   `.loading(.canceled)` and ``isCanceled`` is true. Nothing the cancelled
///   work produces afterwards reaches the state. Without running work it does
///   nothing (a loaded value is not thrown away).
/// - ``reset()`` cancels any running work and returns to `idle`;
///   ``isCanceled`` is false.
/// - The state outlives its observers: one that subscribes late (a view
///   coming back) gets the current state first, then every change.
///
/// Isolated to the main actor: transitions happen one after another on one
/// actor, and the triggers are plain synchronous calls from UI code. `Value`
/// is the primary associated type, so a view can hold any loader of a value
/// (`any Loadable<Thumbnail>`) whatever wrappers it is made of.
@MainActor public protocol Loadable<Value>: AnyObject {
    /// What a finished load holds: ``LoadingState/loaded(_:)``'s payload.
    associatedtype Value: Sendable

    /// Each access subscribes a new observer: the current state first, then
    /// every change, until the loader goes away or the observer stops.
    var state: AsyncStream<LoadingState<Value>> { get }
    /// The state now.
    var currentState: LoadingState<Value> { get }
    /// Whether the last load was cancelled and nothing has been loaded or reset since.
    var isCanceled: Bool { get }
    /// Starts a load unless one is running or a value is loaded, and returns when it has finished.
    func load() async
    /// Cancels any running work and returns to `idle`.
    func reset()
    /// Cancels the running work and shows it as cancelled.
    func cancel()
}
