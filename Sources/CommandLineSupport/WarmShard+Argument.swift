import ArgumentParser
import ThumbnailKit

/// `--shard 2/4`: slice 2 (from 0) of 4.
extension WarmShard: ExpressibleByArgument {
    package init?(argument: String) {
        self.init(parsing: argument)
    }
}
