import CZlib

/// RGBA PNGs of any size, written directly and compressed a row at a time, so a
/// file whose pixels take hundreds of megabytes is made holding one row: red
/// climbs from left to right, green from top to bottom, blue is 128 and alpha
/// ``alpha``. Adam7-interlaced on request, which is what makes a decoder keep
/// accumulators for its whole output.
public enum GiantPNG {
    /// The alpha every pixel gets.
    public static let alpha: UInt8 = 200

    public static func rgba(width: Int, height: Int, interlaced: Bool) -> [UInt8] {
        precondition(width > 0 && height > 0)
        var header = bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        header += [8, 6, 0, 0, interlaced ? 1 : 0]  // 8-bit RGBA, deflate, adaptive filtering, interlace
        let encoder = Compression.Encoder(windowBits: 15, level: 1)
        var data: [UInt8] = []
        for pass in interlaced ? adam7 : [Pass(x: 0, y: 0, dx: 1, dy: 1)] {
            let columns = stride(from: pass.x, to: width, by: pass.dx)
            guard pass.x < width else { continue }
            for y in stride(from: pass.y, to: height, by: pass.dy) {
                var row: [UInt8] = [0]  // filter type None
                row.reserveCapacity(1 + width * 4)
                for x in columns {
                    row += [UInt8(x * 255 / max(width - 1, 1)), UInt8(y * 255 / max(height - 1, 1)), 128, alpha]
                }
                data += encoder.deflate(row, flush: Z_NO_FLUSH)
            }
        }
        data += encoder.deflate([], flush: Z_FINISH)
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", header) + chunk("IDAT", data) + chunk("IEND", [])
    }

    /// Where an Adam7 pass starts and how far apart its pixels are.
    private struct Pass {
        let x, y, dx, dy: Int
    }

    private static let adam7 = [Pass(x: 0, y: 0, dx: 8, dy: 8), Pass(x: 4, y: 0, dx: 8, dy: 8),
                                Pass(x: 0, y: 4, dx: 4, dy: 8), Pass(x: 2, y: 0, dx: 4, dy: 4),
                                Pass(x: 0, y: 2, dx: 2, dy: 4), Pass(x: 1, y: 0, dx: 2, dy: 2),
                                Pass(x: 0, y: 1, dx: 1, dy: 2)]

    private static func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let typed = [UInt8](type.utf8) + payload
        let crc = typed.withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32($0.count)) }
        return bigEndian(UInt32(payload.count)) + typed + bigEndian(UInt32(crc))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
}
