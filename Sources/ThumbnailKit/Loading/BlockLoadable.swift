/// A ``Loadable`` around a closure, for work that needs no class of its own:
///
/// ```swift
/// let loader = BlockLoadable { try await pipeline.thumbnail(for: request) }
/// ```
///
/// Shows `.loading(nil)` while the closure runs (no percentage: a view shows
/// an indeterminate spinner), then `.loaded(value)` or `.failure(error)`.
/// ``BaseLoadable`` gives it the ``Loadable`` rules.
@MainActor public final class BlockLoadable<Value: Sendable>: BaseLoadable<Value> {
    private let operation: @Sendable () async throws -> Value

    /// - Parameter operation: the work of one load, run again by each new
    ///   load; it should stop when its task is cancelled.
    public init(_ operation: @escaping @Sendable () async throws -> Value) {
        self.operation = operation
        super.init()
    }

    public override func fetch() async throws -> Value {
        try await operation()
    }
}
