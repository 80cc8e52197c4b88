#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A feed document, read in pieces from its start as often as parsing needs: bytes in memory, or an
/// open file (a feed spooled to disk as it arrived), so a document of tens of megabytes is never held
/// whole. JSON is read twice (its structure, then its items) and an error's line and column are counted
/// by reading again up to it.
package struct FeedBytes: Sendable {
    private enum Storage: Sendable {
        case memory([UInt8])
        case file(descriptor: Int32)
    }

    private let storage: Storage
    /// The document's length in bytes.
    package let count: Int

    /// A document held in memory.
    package init(_ bytes: [UInt8]) {
        storage = .memory(bytes)
        count = bytes.count
    }

    /// The first `count` bytes of the open file `descriptor`, read with `pread` (its offset is left
    /// alone). The caller keeps it open while parsing, and closes it.
    package init(fileDescriptor descriptor: Int32, count: Int) {
        storage = .file(descriptor: descriptor)
        self.count = count
    }

    /// Reads up to `buffer.count` bytes from `offset` into `buffer`; how many were read, 0 at the end.
    /// - Throws: ``FeedError/unreadable(reason:)`` when the file cannot be read.
    func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(FeedError) -> Int {
        let wanted = min(buffer.count, max(0, count - offset))
        guard wanted > 0 else { return 0 }
        switch storage {
        case .memory(let bytes):
            bytes.withUnsafeBytes { source in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<offset + wanted]))
            }
            return wanted
        case .file(let descriptor):
            while true {
                let read = pread(descriptor, buffer.baseAddress, wanted, off_t(offset))
                if read >= 0 { return read }
                guard errno == EINTR else {
                    throw .unreadable(reason: "cannot read the feed back from its temporary file: "
                                      + String(cString: strerror(errno)))
                }
            }
        }
    }

    /// The bytes in `range` (clamped to the document), for the few places that look at a small piece.
    func bytes(in range: Range<Int>) throws(FeedError) -> [UInt8] {
        let clamped = range.clamped(to: 0..<count)
        var result = [UInt8](repeating: 0, count: clamped.count)
        var filled = 0
        while filled < result.count {
            let read = try result.withUnsafeMutableBytes { buffer in
                Result { () throws(FeedError) in
                    try self.read(at: clamped.lowerBound + filled, into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
                }
            }.get()
            guard read > 0 else { break }
            filled += read
        }
        return Array(result.prefix(filled))
    }

    /// Calls `body` with the document's bytes from `offset` in pieces of at most `chunkSize`, in order,
    /// until the end or until `body` returns `false`.
    func forEachChunk(from offset: Int = 0, chunkSize: Int = 1 << 16,
                      _ body: (UnsafeRawBufferPointer) throws(FeedError) -> Bool) throws(FeedError) {
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var position = offset
        while position < count {
            let read = try buffer.withUnsafeMutableBytes { whole in
                Result { () throws(FeedError) in try self.read(at: position, into: whole) }
            }.get()
            guard read > 0 else { return }
            position += read
            let goOn = try buffer.withUnsafeBytes { whole in
                Result { () throws(FeedError) in try body(UnsafeRawBufferPointer(rebasing: whole[..<read])) }
            }.get()
            guard goOn else { return }
        }
    }
}
