import ArgumentParser

/// A size on the command line: `1048576`, `512K`, `300M`, `2G` or `1.5GB` (powers of 1024).
package struct ByteCount: ExpressibleByArgument, CustomStringConvertible {
    package let bytes: Int

    package init(bytes: Int) {
        self.bytes = bytes
    }

    package init?(argument: String) {
        var text = Substring(argument.uppercased())
        if text.hasSuffix("B") { text = text.dropLast() }
        if text.hasSuffix("I") { text = text.dropLast() }
        let units: [Character: Double] = ["K": 0x1p10, "M": 0x1p20, "G": 0x1p30, "T": 0x1p40]
        var multiplier = 1.0
        if let last = text.last, let unit = units[last] {
            multiplier = unit
            text = text.dropLast()
        }
        guard let value = Double(text), value >= 0, value * multiplier < Double(Int.max) else { return nil }
        bytes = Int(value * multiplier)
    }

    package var description: String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes), unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : "\((value * 10).rounded() / 10) \(units[unit])"
    }
}
