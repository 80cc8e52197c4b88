import Synchronization

/// What the work that callers share (see ``Coalescer``) knows about them:
/// the highest priority among them, the sizes they want, and where their
/// progress goes. It changes as callers join and leave, so the work reads it
/// when it needs it: the sizes once a decode slot is free, the priority as it
/// rises in a queue.
final class SharedWork: Sendable {
    /// Called with what the work is doing (bytes arriving, a retry waiting, decoding).
    typealias Listener = @Sendable (ThumbnailProgress) -> Void

    /// One caller's part: what it wants, and where its progress goes.
    struct Caller: Sendable {
        /// The sizes it wants, unless it asked for them with others (`together`).
        var sizes: Set<ThumbnailSize> = []
        /// The sizes it asked for with others, which it wants while they are pending.
        var together: SizesAskedTogether?
        var listener: Listener?

        var wantedSizes: Set<ThumbnailSize> { together?.pending ?? sizes }
    }

    private struct State {
        var priority: RequestPriority
        var observers: [@Sendable (RequestPriority) -> Void] = []
        /// By caller id, in the order they joined (ids grow).
        var callers: [UInt64: Caller] = [:]
    }

    private let state: Mutex<State>

    init(priority: RequestPriority) {
        state = Mutex(State(priority: priority))
    }

    /// The highest priority among the callers so far.
    var priority: RequestPriority { state.withLock { $0.priority } }

    /// Every size a caller waiting now wants.
    var wantedSizes: Set<ThumbnailSize> {
        callers.reduce(into: []) { $0.formUnion($1.wantedSizes) }
    }

    /// Hands what the work made to the callers that asked for sizes together,
    /// before they are told the work is done: a size of theirs that reaches the
    /// work after it ended finds its thumbnail there.
    func deposit(_ made: [ThumbnailSize: Thumbnail]) {
        for together in callers.compactMap(\.together) { together.deposit(made) }
    }

    private var callers: [Caller] { state.withLock { Array($0.callers.values) } }

    /// Calls `observer` with each new, higher priority.
    func onPriorityRaised(_ observer: @escaping @Sendable (RequestPriority) -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    /// Tells every caller's listener, in the order they joined.
    func report(_ event: ThumbnailProgress) {
        let listeners = state.withLock { state in
            state.callers.sorted { $0.key < $1.key }.compactMap(\.value.listener)
        }
        for listener in listeners { listener(event) }
    }

    func join(_ id: UInt64, _ caller: Caller) {
        state.withLock { $0.callers[id] = caller }
    }

    func leave(_ id: UInt64) {
        state.withLock { _ = $0.callers.removeValue(forKey: id) }
    }

    /// Raises the priority to `priority` if it is higher, telling the observers.
    func raise(to priority: RequestPriority) {
        let observers = state.withLock { state -> [@Sendable (RequestPriority) -> Void] in
            guard priority > state.priority else { return [] }
            state.priority = priority
            return state.observers
        }
        for observer in observers { observer(priority) }
    }
}
