import ArgumentParser
import ThumbnailKit

/// `-s 256` (a square box) or `-s 320x200`.
extension ThumbnailSize: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(parsing: argument)
    }
}
