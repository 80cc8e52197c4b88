/// At most `maximumColors` colours chosen for one image by median cut: the box
/// of colours with the widest spread is split at the median of its widest
/// channel until there are enough boxes; each box's colour is its mean, and
/// each pixel takes its box's index. Sixel needs a palette; a fixed one would
/// band every photo, a palette per image keeps it close (a test holds the
/// decoded sixel to 30 dB PSNR against the thumbnail).
struct MedianCutPalette {
    /// The colours, as RGB.
    let colors: [TerminalColor]
    /// Each pixel's index into ``colors``, row by row.
    let indices: [UInt8]

    /// - Parameter pixels: opaque RGB colours, row by row.
    init(pixels: [TerminalColor], maximumColors: Int = 256) {
        precondition((1...256).contains(maximumColors))
        var boxes = [Box(members: Array(pixels.indices), pixels: pixels)]
        while boxes.count < maximumColors,
              let widest = boxes.indices.max(by: { boxes[$0].priority < boxes[$1].priority }),
              boxes[widest].canSplit {
            let (low, high) = boxes[widest].split(pixels: pixels)
            boxes[widest] = low
            boxes.append(high)
        }
        var indices = [UInt8](repeating: 0, count: pixels.count)
        for (index, box) in boxes.enumerated() {
            for member in box.members { indices[member] = UInt8(index) }
        }
        colors = boxes.map { $0.mean(pixels: pixels) }
        self.indices = indices
    }

    /// Pixels sharing a part of colour space.
    private struct Box {
        var members: [Int]
        /// The channel (0 red, 1 green, 2 blue) with the widest range, and that range.
        let channel: Int
        let range: Int

        init(members: [Int], pixels: [TerminalColor]) {
            self.members = members
            var low = [255, 255, 255], high = [0, 0, 0]
            for member in members {
                let values = Self.channels(pixels[member])
                for channel in 0..<3 {
                    low[channel] = min(low[channel], values[channel])
                    high[channel] = max(high[channel], values[channel])
                }
            }
            let ranges = (0..<3).map { members.isEmpty ? 0 : high[$0] - low[$0] }
            channel = ranges.indices.max { ranges[$0] < ranges[$1] } ?? 0
            range = ranges[channel]
        }

        var canSplit: Bool { members.count > 1 && range > 0 }

        /// Wide boxes of many pixels first: where one colour would be wrong most.
        var priority: Int { canSplit ? range * range * members.count : -1 }

        func split(pixels: [TerminalColor]) -> (Box, Box) {
            let sorted = members.sorted { Self.channels(pixels[$0])[channel] < Self.channels(pixels[$1])[channel] }
            let middle = sorted.count / 2
            return (Box(members: Array(sorted[..<middle]), pixels: pixels),
                    Box(members: Array(sorted[middle...]), pixels: pixels))
        }

        func mean(pixels: [TerminalColor]) -> TerminalColor {
            guard !members.isEmpty else { return TerminalColor(red: 0, green: 0, blue: 0) }
            var sums = [0, 0, 0]
            for member in members {
                let values = Self.channels(pixels[member])
                for channel in 0..<3 { sums[channel] += values[channel] }
            }
            let count = members.count
            return TerminalColor(red: UInt8((sums[0] + count / 2) / count), green: UInt8((sums[1] + count / 2) / count),
                                 blue: UInt8((sums[2] + count / 2) / count))
        }

        static func channels(_ color: TerminalColor) -> [Int] {
            [Int(color.red), Int(color.green), Int(color.blue)]
        }
    }
}
