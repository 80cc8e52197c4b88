import CThumbnail

/// A flag that stops a running decode between scanline batches (WebP: slices of data), from any thread.
public final class DecodeCancellation: @unchecked Sendable {
    // @unchecked Sendable is safe: the C token is a single atomic int that C11
    // atomics read and set from any thread, plus an observer and context fixed
    // at creation; the pointer never changes after init, the checkpoint the
    // context points to lives as long as this object, and the token is
    // destroyed only in deinit, when no decode can hold it.
    let token: OpaquePointer
    /// What the token calls at each checkpoint; kept alive here for the token.
    private let checkpoint: Checkpoint?

    /// A flag not yet cancelled; pass it to one decode, then ``cancel()`` it from any thread.
    public convenience init() {
        self.init(checkpoint: nil)
    }

    /// A flag that calls `checkpoint` on the decoding thread each time a
    /// decode looks at it (every 32 PNG or GIF rows, each JPEG scanline batch or
    /// absorbed row of blocks, each slice of WebP data), just before it reads the flag: a decode's
    /// progress, and a known point to cancel it at.
    init(checkpoint body: (@Sendable () -> Void)?) {
        let checkpoint = body.map(Checkpoint.init)
        let token = if let checkpoint {
            ct_cancel_token_create_observed({ context in
                Unmanaged<Checkpoint>.fromOpaque(context!).takeUnretainedValue().body()
            }, Unmanaged.passUnretained(checkpoint).toOpaque())
        } else {
            ct_cancel_token_create()
        }
        guard let token else { fatalError("out of memory creating a cancel token") }
        self.token = token
        self.checkpoint = checkpoint
    }

    deinit { ct_cancel_token_destroy(token) }

    /// Asks the decode using this flag to stop; it then throws `CancellationError`.
    public func cancel() { ct_cancel_token_cancel(token) }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { ct_cancel_token_is_cancelled(token) != 0 }
}

/// A closure the C token can call through a context pointer.
private final class Checkpoint: Sendable {
    let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
    }
}
