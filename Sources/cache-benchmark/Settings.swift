/// Run lengths and sizes for one invocation: the full benchmark or `--quick`.
struct Settings: Sendable {
    /// `"full"` or `"quick"`, for the report.
    let name: String
    /// Timed runs per row; the report shows their median.
    let runs = 3
    /// The untimed warm-up of a MemoryCache row lasts at least this long.
    let memoryWarmUp: Duration
    /// A timed MemoryCache run is sized (from the warm-up's rate) to last about this long...
    let memoryRunTarget: Duration
    /// ...and never does fewer operations than this, over all threads.
    let memoryMinimumOperations: Int
    /// 20 KB entries per DiskCache run.
    let smallEntryCount: Int
    /// 2 MB entries per DiskCache run.
    let largeEntryCount: Int

    static let full = Settings(
        name: "full", memoryWarmUp: .milliseconds(300), memoryRunTarget: .seconds(1),
        memoryMinimumOperations: 1_000_000, smallEntryCount: 2_000, largeEntryCount: 100)

    static let quick = Settings(
        name: "quick", memoryWarmUp: .milliseconds(50), memoryRunTarget: .milliseconds(200),
        memoryMinimumOperations: 100_000, smallEntryCount: 200, largeEntryCount: 10)
}

/// What the command line asks for.
enum Invocation {
    case help
    case run(Settings)

    static let usage = """
        Usage: cache-benchmark [--quick]

        Measures MemoryCache get/set throughput with 1 and 2 threads and DiskCache
        write and read throughput, and prints a Markdown report on stdout (progress
        goes to stderr). Build it in release: scripts/bench-caches.sh does.

        Options:
          --quick     shorter runs: ~0.2 s per MemoryCache run, 200 x 20 KB and
                      10 x 2 MB disk entries (instead of ~1 s, 2,000 and 100)
          -h, --help  this text

        Disk entries go to a new directory under $TMPDIR (or /tmp), removed at the end.
        Exit status: 0 when done, 1 when a cache operation fails or a cache misbehaves,
        64 on a usage error.
        """

    /// Parses the arguments after the program name.
    /// - Throws: ``UsageError`` for anything it does not know.
    init(arguments: [String]) throws(UsageError) {
        var settings = Settings.full
        for argument in arguments {
            switch argument {
            case "--quick": settings = .quick
            case "-h", "--help":
                self = .help
                return
            default: throw UsageError(argument: argument)
            }
        }
        self = .run(settings)
    }
}

/// An argument the benchmark does not take.
struct UsageError: Error, CustomStringConvertible {
    let argument: String
    var description: String { "unknown argument '\(argument)'" }
}
