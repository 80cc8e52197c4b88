import ArgumentParser
import CommandLineSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `thumbnailer-feed`: the feed commands of `thumbnailer`, which `thumbnailer`
/// runs in this separate executable so that only they link Foundation's
/// networking (URLSession, in ThumbnailHTTP). Its help and messages speak as
/// `thumbnailer`.
@main
struct ThumbnailerFeed: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnailer",
        abstract: "Feed commands of thumbnailer.",
        subcommands: [WarmCommand.self, BrowseCommand.self])

    /// As ArgumentParser's, but a ``CommandFailure`` prints its one line and exits with its own status.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            StandardError.print("thumbnailer: \(failure)\n")
            exit(withError: ExitCode(failure.exitCode))
        } catch {
            exit(withError: error)
        }
    }
}
