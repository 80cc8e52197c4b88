import Synchronization

/// Where a body goes as it arrives: a disk-cache entry being written, or memory.
///
/// A loader calls ``begin(_:)`` once, when it has accepted the response,
/// then ``write(_:)`` for each piece of the body in order, never two calls at
/// once. A sink that throws ends the transfer with its error.
public protocol BodySink: Sendable {
    /// The response was accepted; no body byte has been written yet.
    func begin(_ response: ResponseHead) throws
    /// The next bytes of the body.
    func write(_ bytes: UnsafeRawBufferPointer) throws
}

/// Collects a body in memory: for small documents (feeds), and for a
/// pipeline without a disk tier. It holds the whole body, so its cost is the
/// body's size, up to the request's ``DataRequest/maximumBytes``.
public final class MemoryBodySink: BodySink {
    private let state = Mutex<(head: ResponseHead?, bytes: [UInt8])>((nil, []))

    /// An empty sink, holding no response yet.
    public init() {}

    /// The body received so far.
    public var bytes: [UInt8] { state.withLock { $0.bytes } }

    /// The response head, once ``begin(_:)`` was called.
    public var response: ResponseHead? { state.withLock { $0.head } }

    public func begin(_ response: ResponseHead) throws {
        state.withLock { state in
            state.head = response
            // No reservation from the announced length: a server can lie about it.
            state.bytes = []
        }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        state.withLock { $0.bytes.append(contentsOf: bytes) }
    }
}
