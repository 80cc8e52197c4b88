/// JPEGs of any size, written directly (no encoder holds the image): every 8×8
/// block flat, so only DC coefficients are coded and a 9000×9000 file takes a
/// second to make and under a megabyte to keep. Luma rises from left to right
/// (0 at the left edge, 255 at the right), Cb from top to bottom, Cr stays 128;
/// 4:4:4, so each component has a block for every 8×8 pixels.
///
/// The decoder cannot tell: a progressive file still makes libjpeg keep all 64
/// coefficients of every block (128 bytes) until its last scan is read, which
/// is what the memory tests want to see.
public enum GiantJPEG {
    /// A progressive (SOF2) file: one interleaved DC scan, then an AC scan per
    /// component that codes every block as empty (end-of-band runs).
    public static func progressive(width: Int, height: Int) -> [UInt8] {
        make(width: width, height: height, progressive: true)
    }

    /// A baseline (SOF0) file: one interleaved scan.
    public static func baseline(width: Int, height: Int) -> [UInt8] {
        make(width: width, height: height, progressive: false)
    }

    /// The DC coefficient of the block at (column, row) for each component (level-shifted, quantised by 8: the block's mean − 128).
    static func dc(component: Int, column: Int, row: Int, columns: Int, rows: Int) -> Int {
        switch component {
        case 0: column * 255 / max(columns - 1, 1) - 128
        case 1: row * 255 / max(rows - 1, 1) - 128
        default: 0
        }
    }

    private static func make(width: Int, height: Int, progressive: Bool) -> [UInt8] {
        precondition((1...65_535).contains(width) && (1...65_535).contains(height))
        let columns = (width + 7) / 8, rows = (height + 7) / 8
        var out: [UInt8] = [0xFF, 0xD8]
        func segment(_ marker: UInt8, _ payload: [UInt8]) {
            out += [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        }
        segment(0xDB, [0] + [UInt8](repeating: 8, count: 64))  // one table, every step 8
        let frame: [UInt8] = [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 3]
            + [1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0]
        segment(progressive ? 0xC2 : 0xC0, frame)
        // DC: category n has an n+1-bit code (1…10, 110, …), so the many zero differences cost a bit each.
        segment(0xC4, [0x00] + [UInt8](repeating: 1, count: 12) + [UInt8](repeating: 0, count: 4) + (0...11).map { UInt8($0) })
        // AC: progressive, end-of-band runs EOB0…EOB14 (4-bit codes); baseline, the end of block alone (a 1-bit code).
        if progressive {
            segment(0xC4, [0x10, 0, 0, 0, 15] + [UInt8](repeating: 0, count: 12) + (0...14).map { UInt8($0 << 4) })
        } else {
            segment(0xC4, [0x10, 1] + [UInt8](repeating: 0, count: 15) + [0x00])
        }

        var bits = BitWriter()
        segment(0xDA, [3, 1, 0x00, 2, 0x00, 3, 0x00, 0, progressive ? 0 : 63, 0])
        var predictions = [0, 0, 0]
        for row in 0..<rows {
            for column in 0..<columns {
                for component in 0..<3 {
                    let value = dc(component: component, column: column, row: row, columns: columns, rows: rows)
                    bits.writeDifference(value - predictions[component])
                    predictions[component] = value
                    if !progressive { bits.write(0, count: 1) }  // end of block
                }
            }
        }
        out += bits.finish()
        if progressive {
            for component in 1...3 {
                segment(0xDA, [1, UInt8(component), 0x00, 1, 63, 0])
                var runs = BitWriter()
                var remaining = columns * rows
                while remaining > 0 {
                    let run = min(remaining, 32_767)
                    let magnitude = Int.bitWidth - 1 - run.leadingZeroBitCount
                    runs.write(magnitude, count: 4)
                    runs.write(run - (1 << magnitude), count: magnitude)
                    remaining -= run
                }
                out += runs.finish()
            }
        }
        return out + [0xFF, 0xD9]
    }
}

/// Entropy-coded bits, most significant first, with JPEG's 0xFF byte stuffing.
private struct BitWriter {
    private var bytes: [UInt8] = []
    private var accumulator = 0
    private var count = 0

    mutating func write(_ value: Int, count bitCount: Int) {
        guard bitCount > 0 else { return }
        accumulator = accumulator << bitCount | (value & ((1 << bitCount) - 1))
        count += bitCount
        while count >= 8 {
            let byte = UInt8((accumulator >> (count - 8)) & 0xFF)
            bytes.append(byte)
            if byte == 0xFF { bytes.append(0) }
            count -= 8
        }
        accumulator &= (1 << count) - 1
    }

    /// A DC difference: its category's code (n ones and a zero, category 0 being "0"), then its bits.
    mutating func writeDifference(_ difference: Int) {
        let magnitude = abs(difference)
        let category = magnitude == 0 ? 0 : Int.bitWidth - magnitude.leadingZeroBitCount
        write((1 << (category + 1)) - 2, count: category + 1)
        write(difference >= 0 ? difference : difference + (1 << category) - 1, count: category)
    }

    /// The bytes, the last one padded with ones.
    mutating func finish() -> [UInt8] {
        if count > 0 { write((1 << (8 - count)) - 1, count: 8 - count) }
        return bytes
    }
}
