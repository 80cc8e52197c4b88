import Foundation
import Synchronization
import Testing
import TestSupport
import ThumbnailKit

/// The async decodes hand the blocking C decode to Dispatch's threads: while
/// they wait on their input, the cooperative pool stays free for other tasks.
@Suite struct AsyncDecodingTests {
    @Test func decodesWaitingOnTheirBytesLeaveTheCooperativePoolFree() async throws {
        let png = try RGBAImage(width: 16, height: 16) { x, y in (UInt8(x * 16), UInt8(y * 16), 0, 255) }.png()
        let gate = Gate()
        // More decodes than the pool has threads, each blocked until the gate opens.
        let decodes = (0...ThumbnailPipeline.processorCount).map { _ in
            Task.detached { try await ThumbnailDecoder(size: .fit(8)).decode(GatedBytes(bytes: png, gate: gate)) }
        }
        // A task that runs only if a pool thread is free while the decodes wait.
        Task.detached { gate.open(by: .poolTask) }
        // Otherwise the decodes would wait forever: a plain thread opens the gate later, and the test fails.
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 10)
            gate.open(by: .rescue)
        }

        for decode in decodes { #expect(try await decode.value.width == 8) }
        #expect(gate.openedBy == .poolTask)
    }

    @Test func bytesWithoutContiguousStorageDecodeAsTheirArrayDoes() throws {
        let png = try RGBAImage(width: 16, height: 16) { x, y in (UInt8(x * 16), UInt8(y * 16), 0, 255) }.png()
        let decoder = ThumbnailDecoder(size: .fit(8))

        let fromArray = try decoder.decode(png)
        let fromLazyMap = try decoder.decode(png.lazy.map { $0 })

        #expect(fromLazyMap.width == 8 && fromLazyMap.pixels.elementsEqual(fromArray.pixels))
    }
}

/// Bytes whose reader blocks its thread until a ``Gate`` opens.
private struct GatedBytes: RandomAccessCollection, Sendable {
    let bytes: [UInt8]
    let gate: Gate

    var startIndex: Int { bytes.startIndex }
    var endIndex: Int { bytes.endIndex }
    subscript(position: Int) -> UInt8 { bytes[position] }

    func withContiguousStorageIfAvailable<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result? {
        gate.wait()
        return try bytes.withUnsafeBufferPointer(body)
    }
}

/// Holds the threads that wait on it until it opens, once, for whoever opens it first.
private final class Gate: Sendable {
    enum Opener: Sendable { case poolTask, rescue }

    private let closed = DispatchGroup()
    private let opener = Mutex<Opener?>(nil)

    init() { closed.enter() }

    /// Who opened the gate, if anyone has.
    var openedBy: Opener? { opener.withLock { $0 } }

    func wait() { closed.wait() }

    func open(by opener: Opener) {
        let first = self.opener.withLock { current in
            defer { if current == nil { current = opener } }
            return current == nil
        }
        if first { closed.leave() }
    }
}
