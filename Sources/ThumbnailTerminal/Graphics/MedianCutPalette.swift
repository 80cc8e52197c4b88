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
        let channels = Channels(pixels)
        var boxes = [Box(members: Array(pixels.indices), channels: channels)]
        while boxes.count < maximumColors,
              let widest = boxes.indices.max(by: { boxes[$0].priority < boxes[$1].priority }),
              boxes[widest].canSplit {
            let (low, high) = boxes[widest].split(channels: channels)
            boxes[widest] = low
            boxes.append(high)
        }
        var indices = [UInt8](repeating: 0, count: pixels.count)
        for (index, box) in boxes.enumerated() {
            for member in box.members { indices[member] = UInt8(index) }
        }
        colors = boxes.map { $0.mean(channels: channels) }
        self.indices = indices
    }

    /// The pixels' red, green and blue values, each channel in an array of its own.
    private struct Channels {
        let values: [[UInt8]]

        init(_ pixels: [TerminalColor]) {
            values = [pixels.map(\.red), pixels.map(\.green), pixels.map(\.blue)]
        }
    }

    /// Pixels sharing a part of colour space.
    private struct Box {
        var members: [Int]
        /// The channel (0 red, 1 green, 2 blue) with the widest range, and that range.
        let channel: Int
        let range: Int

        init(members: [Int], channels: Channels) {
            self.members = members
            var ranges = [0, 0, 0]
            for channel in 0..<3 where !members.isEmpty {
                channels.values[channel].withUnsafeBufferPointer { values in
                    var low = UInt8.max, high = UInt8.min
                    for member in members {
                        low = min(low, values[member])
                        high = max(high, values[member])
                    }
                    ranges[channel] = Int(high) - Int(low)
                }
            }
            channel = ranges.indices.max { ranges[$0] < ranges[$1] } ?? 0
            range = ranges[channel]
        }

        var canSplit: Bool { members.count > 1 && range > 0 }

        /// Wide boxes of many pixels first: where one colour would be wrong most.
        var priority: Int { canSplit ? range * range * members.count : -1 }

        /// The lower and the upper half of its members by its widest channel: counted into
        /// 256 bins for the median, not sorted (each split is linear in its members).
        func split(channels: Channels) -> (Box, Box) {
            let half = members.count / 2
            var low: [Int] = [], high: [Int] = []
            low.reserveCapacity(half)
            high.reserveCapacity(members.count - half)
            channels.values[channel].withUnsafeBufferPointer { values in
                var counts = [Int](repeating: 0, count: 256)
                for member in members { counts[Int(values[member])] += 1 }
                // The median: the value at which the running count passes half.
                var below = 0, median = 0
                while below + counts[median] <= half {
                    below += counts[median]
                    median += 1
                }
                var medianToLow = half - below  // the low half's share of the median's members
                for member in members {
                    let value = Int(values[member])
                    if value < median || (value == median && medianToLow > 0) {
                        if value == median { medianToLow -= 1 }
                        low.append(member)
                    } else {
                        high.append(member)
                    }
                }
            }
            return (Box(members: low, channels: channels), Box(members: high, channels: channels))
        }

        func mean(channels: Channels) -> TerminalColor {
            guard !members.isEmpty else { return TerminalColor(red: 0, green: 0, blue: 0) }
            let count = members.count
            let means = channels.values.map { values in
                let sum = members.reduce(0) { $0 + Int(values[$1]) }
                return UInt8((sum + count / 2) / count)
            }
            return TerminalColor(red: means[0], green: means[1], blue: means[2])
        }
    }
}
