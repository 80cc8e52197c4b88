import ArgumentParser
import CommandLineSupport
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
        subcommands: [ThumbCommand.self, CacheCommand.self, WarmCommand.self, BrowseCommand.self])

    /// As ArgumentParser's, but a ``CommandFailure`` prints its one line and exits with its own status.
    static func main() async {
        // A write past the file size limit (`ulimit -f`) then fails with EFBIG, which
        // each command reports as a failure of that file, instead of killing the process.
        signal(SIGXFSZ, SIG_IGN)
        do {
            var command = try parseAsRoot()
            // Before the command's work starts any thread: a thread that allocates gets an arena.
            if let tuned = type(of: command) as? any TunesAllocator.Type { ProcessMemory.tuneAllocator(for: tuned.workload) }
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

/// A command whose memory use glibc's allocator should be tuned to.
protocol TunesAllocator {
    static var workload: ProcessMemory.Workload { get }
}
