#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Immutable RGBA8 pixels (straight alpha, rows top to bottom, no padding).
///
/// Owns the buffer the C decoder allocated, so a thumbnail reaches Swift
/// without a copy; the memory is freed when the last reference goes away.
public final class PixelBuffer: RandomAccessCollection, @unchecked Sendable {
    // @unchecked Sendable is safe: `base` and `count` are immutable, the bytes
    // are written by the decoder before this object exists and never after,
    // and the only mutation (free) happens in deinit, when no reference is left.
    private let base: UnsafeMutablePointer<UInt8>
    public let count: Int

    /// Takes ownership of `count` bytes allocated with `malloc`.
    init(takingOwnershipOf base: UnsafeMutablePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
    }

    /// Copies `bytes` into a new buffer.
    public convenience init(copying bytes: some Collection<UInt8>) {
        let capacity = Swift.max(bytes.count, 1)
        let storage = malloc(capacity)!.bindMemory(to: UInt8.self, capacity: capacity)
        _ = UnsafeMutableBufferPointer(start: storage, count: bytes.count).initialize(from: bytes)
        self.init(takingOwnershipOf: storage, count: bytes.count)
    }

    deinit { free(base) }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> UInt8 {
        precondition(position >= 0 && position < count, "pixel byte index out of range")
        return base[position]
    }

    /// Calls `body` with the raw bytes, valid only for the duration of the call.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }
}
