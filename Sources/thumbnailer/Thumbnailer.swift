import ArgumentParser

/// The `thumbnailer` command line.
@main
struct Thumbnailer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnailer",
        abstract: "Decode-and-downscale image thumbnails without ever holding a full-size bitmap.",
        subcommands: [ThumbCommand.self, CacheCommand.self, WarmCommand.self, BrowseCommand.self])
}
