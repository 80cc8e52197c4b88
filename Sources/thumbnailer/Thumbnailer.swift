import ArgumentParser
import CommandLineSupport
import ThumbnailKit
import ThumbnailTerminal
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `thumbnailer` command line.
@main
struct Thumbnailer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnailer",
        abstract: "Decode-and-downscale image thumbnails without ever holding a full-size bitmap.",
        discussion: """
            Every size and count limit is a limit: 0 is a usage error (exit 64), never "no limit". \
            Only an option whose help says so takes unlimited.
            """,
        version: ThumbnailerVersion.current,
        subcommands: [ThumbCommand.self, CacheCommand.self, WarmCommand.self, BrowseCommand.self, ServeCommand.self])

    /// As ArgumentParser's, but a ``CommandFailure`` prints its one line and exits with its own status,
    /// and so does a cache error (status 1). Both lines are escaped (``TerminalText``): they may quote
    /// a feed, a URL or a path.
    static func main() async {
        // A write past the file size limit (`ulimit -f`) then fails with EFBIG, which
        // each command reports as a failure of that file, instead of killing the process.
        signal(SIGXFSZ, SIG_IGN)
        do {
            var command = try parseAsRoot(ServeCommand.withEnvironmentOptions(Array(CommandLine.arguments.dropFirst())))
            // Before the command's work starts any thread: a thread that allocates gets an arena.
            if let tuned = type(of: command) as? any TunesAllocator.Type { ProcessMemory.tuneAllocator(for: tuned.workload) }
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            exit(with: failure)
        } catch let error as DiskCacheError {
            exit(with: CommandFailure("\(error)", exitCode: 1))
        } catch {
            exit(withError: error)
        }
    }

    private static func exit(with failure: CommandFailure) -> Never {
        StandardError.print(TerminalText.escaped("thumbnailer: \(failure)") + "\n")
        exit(withError: ExitCode(failure.exitCode))
    }
}

/// A command whose memory use glibc's allocator should be tuned to.
protocol TunesAllocator {
    static var workload: ProcessMemory.Workload { get }
}
