import CThumbnail

/// A flag that stops a running decode between scanline batches, from any thread.
public final class DecodeCancellation: @unchecked Sendable {
    // @unchecked Sendable is safe: the C token is a single atomic int that C11
    // atomics read and set from any thread, the pointer never changes after
    // init, and it is destroyed only in deinit, when no decode can hold it.
    let token: OpaquePointer

    public init() {
        guard let token = ct_cancel_token_create() else { fatalError("out of memory creating a cancel token") }
        self.token = token
    }

    deinit { ct_cancel_token_destroy(token) }

    /// Asks the decode using this flag to stop; it then throws `CancellationError`.
    public func cancel() { ct_cancel_token_cancel(token) }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { ct_cancel_token_is_cancelled(token) != 0 }
}
