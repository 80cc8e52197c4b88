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
package struct SixelImage: Sendable, Hashable {
    package let width: Int
    package let height: Int
    /// The whole escape sequence.
    package let bytes: [UInt8]

    package init(thumbnail: Thumbnail, background: TerminalColor) {
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
        // Each colour's sixels across the band (bits, 0…63), and the columns it covers: one pass
        // over the band's pixels fills them, and only covered columns are written and cleared.
        let colorCount = palette.colors.count
        var sixels = [UInt8](repeating: 0, count: colorCount * width)
        var firstColumn = [Int](repeating: Int.max, count: colorCount)
        var lastColumn = [Int](repeating: -1, count: colorCount)
        for bandTop in stride(from: 0, to: height, by: 6) {
            for offset in 0..<min(6, height - bandTop) {
                let row = (bandTop + offset) * width
                for x in 0..<width {
                    let color = Int(palette.indices[row + x])
                    sixels[color * width + x] |= 1 << offset
                    firstColumn[color] = min(firstColumn[color], x)
                    lastColumn[color] = max(lastColumn[color], x)
                }
            }
            var firstPass = true
            for color in 0..<colorCount where lastColumn[color] >= 0 {
                if !firstPass { out.append(UInt8(ascii: "$")) }
                firstPass = false
                out += Array("#\(color)".utf8)
                appendRun(of: 0, count: firstColumn[color], to: &out)  // empty up to its first column
                let covered = (color * width + firstColumn[color])...(color * width + lastColumn[color])
                appendRunLengthCoded(sixels[covered], to: &out)
                sixels[covered].withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
                firstColumn[color] = Int.max
                lastColumn[color] = -1
            }
            out.append(UInt8(ascii: "-"))
        }
        out += [0x1B, UInt8(ascii: "\\")]
        return out
    }

    /// Sixels (bits 0…63, written as characters 63…126), runs of four or more as `!count char`.
    private static func appendRunLengthCoded(_ sixels: ArraySlice<UInt8>, to out: inout [UInt8]) {
        var index = sixels.startIndex
        while index < sixels.endIndex {
            var run = 1
            while index + run < sixels.endIndex, sixels[index + run] == sixels[index] { run += 1 }
            appendRun(of: sixels[index], count: run, to: &out)
            index += run
        }
    }

    /// `count` times the sixel `bits`: as `!count char` from four on.
    private static func appendRun(of bits: UInt8, count: Int, to out: inout [UInt8]) {
        let character = 63 + bits
        if count >= 4 {
            out += Array("!\(count)".utf8)
            out.append(character)
        } else {
            out += Array(repeating: character, count: count)
        }
    }
}
