import ThumbnailKit

/// A thumbnail as a sixel image (DEC's bitmap format: xterm `-ti vt340`,
/// foot, mlterm, WezTerm, Windows Terminal, iTerm2), with a palette of its
/// own (``MedianCutPalette``). Transparent pixels are blended over the
/// background colour first, as half blocks are.
///
/// The sequence: `ESC P 0;1;0 q`, raster attributes (`"1;1;W;H`: square
/// pixels and the size), the palette (`#i;2;r;g;b` in percent), then each band
/// of six pixel rows, one pass per colour in it (`#i`, run-length coded with
/// `!n`, `$` back to the band's start), `-` to the next band, and `ESC \`.
public struct SixelImage: Sendable, Hashable {
    public let width: Int
    public let height: Int
    /// The whole escape sequence.
    public let bytes: [UInt8]

    public init(thumbnail: Thumbnail, background: TerminalColor) {
        width = thumbnail.width
        height = thumbnail.height
        var pixels: [TerminalColor] = []
        pixels.reserveCapacity(width * height)
        for y in 0..<height {
            for x in 0..<width { pixels.append(HalfBlockImage.blend(thumbnail.pixel(x: x, y: y), over: background)) }
        }
        bytes = Self.encode(MedianCutPalette(pixels: pixels), width: width, height: height)
    }

    private static func encode(_ palette: MedianCutPalette, width: Int, height: Int) -> [UInt8] {
        var out: [UInt8] = [0x1B] + Array("P0;1;0q\"1;1;\(width);\(height)".utf8)
        for (index, color) in palette.colors.enumerated() {
            func percent(_ value: UInt8) -> Int { (Int(value) * 100 + 127) / 255 }
            out += Array("#\(index);2;\(percent(color.red));\(percent(color.green));\(percent(color.blue))".utf8)
        }
        var row = [UInt8](repeating: 0, count: width)
        for bandTop in stride(from: 0, to: height, by: 6) {
            let bandRows = min(6, height - bandTop)
            // Which colours this band uses, in palette order.
            var used = [Bool](repeating: false, count: palette.colors.count)
            for y in bandTop..<(bandTop + bandRows) {
                for x in 0..<width { used[Int(palette.indices[y * width + x])] = true }
            }
            var firstPass = true
            for color in used.indices where used[color] {
                for x in 0..<width {
                    var bits: UInt8 = 0
                    for offset in 0..<bandRows where palette.indices[(bandTop + offset) * width + x] == UInt8(color) {
                        bits |= 1 << offset
                    }
                    row[x] = 63 + bits
                }
                if !firstPass { out.append(UInt8(ascii: "$")) }
                firstPass = false
                out += Array("#\(color)".utf8)
                appendRunLengthCoded(row, to: &out)
            }
            out.append(UInt8(ascii: "-"))
        }
        out += [0x1B, UInt8(ascii: "\\")]
        return out
    }

    /// Sixel characters, runs of four or more as `!count char`; the empty ones at the end left out.
    private static func appendRunLengthCoded(_ row: [UInt8], to out: inout [UInt8]) {
        var end = row.count
        while end > 0, row[end - 1] == 63 { end -= 1 }
        var index = 0
        while index < end {
            var run = 1
            while index + run < end, row[index + run] == row[index] { run += 1 }
            if run >= 4 {
                out += Array("!\(run)".utf8)
                out.append(row[index])
            } else {
                out += Array(repeating: row[index], count: run)
            }
            index += run
        }
    }
}
