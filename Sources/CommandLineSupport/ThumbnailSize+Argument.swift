import ArgumentParser
import ThumbnailKit

/// `-s 256` (a square box) or `-s 320x200` to fit in; `-s fill:256` or `-s fill:320x200` to fill.
extension ThumbnailSize: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(parsing: argument)
    }
}
