import Synchronization
import ThumbnailKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A temporary file without a name, in `$TMPDIR` (else /tmp): unlinked as soon as it is made, so it goes
/// with the process however that ends. `warm` and `browse` keep on disk what would otherwise be held whole:
/// the feed as it arrives (up to --max-feed-bytes), the list of its images to warm, the rows to browse.
///
/// As a ``BodySink``, a transfer that begins again (a retry) starts it over.
final class SpoolFile: BodySink {
    let descriptor: Int32
    /// Bytes written; appended at this offset.
    private let length = Mutex(0)

    /// - Throws: ``CommandFailure`` (exit status 2) when no temporary file can be made.
    init() throws {
        let directory = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((directory + "/thumbnailer-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw CommandFailure("cannot make a temporary file in \(directory) to read the feed through: "
                                 + String(cString: strerror(errno)) + "; set TMPDIR to a writable directory",
                                 exitCode: 2)
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Bytes written so far.
    var count: Int { length.withLock { $0 } }

    /// Why bytes written to a spool file could not be read back (the disk failed under it).
    struct ReadError: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    /// The `count` bytes written at `offset`, read back whole.
    func read(count: Int, at offset: Int) throws(ReadError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let result = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, count - done, off_t(offset + done)) }
            if result < 0, errno == EINTR { continue }
            guard result > 0 else { throw ReadError(reason: result == 0 ? "the file ends early" : String(cString: strerror(errno))) }
            done += result
        }
        return bytes
    }

    func begin(_ response: ResponseHead) throws {
        length.withLock { $0 = 0 }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        try length.withLock { length in
            var written = 0
            while written < bytes.count {
                let result = pwrite(descriptor, bytes.baseAddress! + written, bytes.count - written, off_t(length + written))
                if result < 0, errno == EINTR { continue }
                guard result > 0 else {
                    throw CommandFailure("cannot write to a temporary file: " + String(cString: strerror(errno)), exitCode: 2)
                }
                written += result
            }
            length += written
        }
    }
}
