import CZlib

/// Bodies in HTTP's content codings, made with the system's zlib: whole documents, and bombs
/// (a megabyte that expands to a gibibyte) made in a fraction of a second rather than by
/// compressing the gibibyte.
public enum Compression {
    /// The stream formats: gzip (RFC 1952), zlib's (RFC 1950, what HTTP's `deflate` means), and
    /// raw deflate (RFC 1951, what some servers send as `deflate` all the same).
    public enum Format: Sendable, CaseIterable {
        case gzip, zlib, rawDeflate

        /// zlib's `windowBits` for the format: 15 (32 KiB), plus 16 for gzip's wrapper, negative for none.
        var windowBits: Int32 {
            switch self {
            case .gzip: 15 + 16
            case .zlib: 15
            case .rawDeflate: -15
            }
        }
    }

    /// `bytes` compressed into one stream of `format`.
    public static func compress(_ bytes: [UInt8], as format: Format, level: Int32 = 6) -> [UInt8] {
        Encoder(windowBits: format.windowBits, level: level).deflate(bytes, flush: Z_FINISH)
    }

    /// A stream of `format` that expands to `mebibytes` MiB of zero bytes, about a thousandth of
    /// that in size (1 GiB: 1 MB). Once the window is all zeros, the encoder writes the same bytes
    /// for every further MiB of zeros (ended by a sync flush, on a byte boundary), so that piece
    /// is compressed once and repeated; the checksum in the trailer is zlib's combination of the
    /// MiB's, so the stream is whole and valid.
    public static func bomb(mebibytes: Int, as format: Format) -> [UInt8] {
        precondition(mebibytes >= 2)
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        let encoder = Encoder(windowBits: Format.rawDeflate.windowBits, level: 9)
        let first = encoder.deflate(zeros, flush: Z_SYNC_FLUSH)
        let repeated = encoder.deflate(zeros, flush: Z_SYNC_FLUSH)
        precondition(encoder.deflate(zeros, flush: Z_SYNC_FLUSH) == repeated, "zlib no longer repeats itself on zeros")
        let last = encoder.deflate([], flush: Z_FINISH)
        var body = first
        body.reserveCapacity(first.count + repeated.count * (mebibytes - 1) + last.count + 18)
        for _ in 1..<mebibytes { body += repeated }
        body += last

        let length = zeros.count
        let crcOfMiB = zeros.withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32(length)) }
        let adlerOfMiB = zeros.withUnsafeBufferPointer { adler32(1, $0.baseAddress, UInt32(length)) }
        var crc = crcOfMiB, adler = adlerOfMiB
        for _ in 1..<mebibytes {
            crc = crc32_combine(crc, crcOfMiB, off_t(length))
            adler = adler32_combine(adler, adlerOfMiB, off_t(length))
        }
        switch format {
        case .rawDeflate:
            return body
        case .zlib:
            return [0x78, 0xDA] + body + bigEndian(UInt32(adler))
        case .gzip:
            let size = UInt32(truncatingIfNeeded: mebibytes << 20)
            return [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 2, 0xFF] + body + littleEndian(UInt32(crc)) + littleEndian(size)
        }
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }

    private static func littleEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }

    /// One zlib deflate stream, at an address of its own: zlib's state points back at it, so it must not move.
    final class Encoder {
        private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)

        init(windowBits: Int32, level: Int32) {
            stream.initialize(to: z_stream())
            let status = deflateInit2_(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
                                       Int32(MemoryLayout<z_stream>.size))
            precondition(status == Z_OK, "deflateInit2 failed: \(status)")
        }

        deinit {
            deflateEnd(stream)
            stream.deallocate()
        }

        /// Compresses `bytes` and flushes as `flush` says; returns what came out.
        func deflate(_ bytes: [UInt8], flush: Int32) -> [UInt8] {
            var input = bytes
            var output: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            input.withUnsafeMutableBufferPointer { input in
                stream.pointee.next_in = input.baseAddress
                stream.pointee.avail_in = UInt32(input.count)
                repeat {
                    let produced = buffer.withUnsafeMutableBufferPointer { buffer in
                        stream.pointee.next_out = buffer.baseAddress
                        stream.pointee.avail_out = UInt32(buffer.count)
                        let status = CZlib.deflate(stream, flush)
                        precondition(status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR, "deflate failed: \(status)")
                        return buffer.count - Int(stream.pointee.avail_out)
                    }
                    output += buffer[..<produced]
                } while stream.pointee.avail_out == 0 || stream.pointee.avail_in > 0
                stream.pointee.next_in = nil
            }
            return output
        }
    }
}
