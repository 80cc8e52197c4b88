// Throughput of MemoryCache and DiskCache (a benchmark, not a test): prints a
// Markdown report on stdout and progress on stderr; `--help` for the options.
// scripts/bench-caches.sh builds it in release and runs it.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reports `error` on stderr and exits with status 1.
func fail(_ error: any Error) -> Never {
    progress("cache-benchmark: error: \(error)")
    exit(1)
}

/// The machine, the build and the run lengths, so numbers from different runs can be compared fairly.
func header(_ settings: Settings, scratch: String) -> String {
    let processors = Machine.processors
    return """
        # Cache benchmark

        - Machine: \(processors) CPU\(processors == 1 ? "" : "s") (nproc), \(Machine.cpuModel), \(Machine.kernel)
        - Load average at start: \(Machine.loadAverage) (other work on the machine slows every row and widens the spread)
        - Build: \(Machine.buildConfiguration)
        - Runs: \(settings.name); each row is the median of \(settings.runs) timed runs after an untimed warm-up
        - Disk cache directory: \(scratch) (\(Machine.fileSystemType(of: scratch))), removed at the end

        """
}

/// The MemoryCache table: each workload with 1 and 2 threads.
func memorySection(_ settings: Settings) async throws -> String {
    var table = MarkdownTable([
        ("Workload", .left), ("Threads", .right), ("Ops/run", .right), ("Ops/s", .right),
        ("ns/op", .right), ("ns/op per thread", .right), ("Spread", .right),
    ])
    for workload in MemoryWorkload.allCases {
        for threads in [1, 2] {
            var benchmarkCase = MemoryCase(workload, threads: threads)
            let measurement = try await benchmarkCase.measure(settings)
            progress("  MemoryCache \(workload.title), \(threads) thread(s): \(rate(measurement.rate)) ops/s")
            table.append([
                workload.title, String(threads), grouped(measurement.work), rate(measurement.rate),
                decimal(measurement.nanosecondsPerUnit, places: 1),
                decimal(measurement.nanosecondsPerUnit * Double(threads), places: 1),
                percent(measurement.spread),
            ])
        }
    }
    return """
        ## MemoryCache

        `MemoryCache<Int, ThumbnailStub>`, budget \(MemoryShape.costLimit >> 20) MiB = \
        \(grouped(MemoryShape.capacity)) entries of cost \(MemoryShape.entryCost >> 10) KiB; the value is \
        an 8-byte struct, so the loops time the cache (mutex, dictionary, recency list), not the value. \
        Hit-heavy draws keys from \(MemoryShape.workingSet) that fit the budget (every get hits); churn sets \
        a new key each time into a full cache (every set evicts). With 2 threads, two child tasks share \
        one cache; the cache's counters are checked against what the loops did.

        \(table.rendered)

        - Ops/s and ns/op are for all threads together (wall time ÷ operations); ns/op per \
        thread is what each thread saw. Runs last about \
        \(decimal(settings.memoryRunTarget.inSeconds, places: 1)) s and at least \
        \(grouped(settings.memoryMinimumOperations)) operations.
        - A get also moves its entry to the front of the recency list and counts a hit, so it \
        holds the one mutex exclusively, like a set: two threads never work in the cache at \
        once, and waiting for the lock and moving its cache lines between cores can make \
        2 threads slower in total than 1.

        """
}

/// The DiskCache table: writes, warm reads and writes that evict.
func diskSection(_ settings: Settings, scratch: String) throws -> String {
    let rows = try DiskBenchmark(root: scratch, settings: settings).rows()
    return """
        ## DiskCache

        Each write run starts from an empty cache directory; the size limit is far above what a \
        run writes (nothing is evicted, which each run checks), except in the last row. Keys are \
        URL-like; 20 KB entries go to `.thumbnails`, 2 MB ones to `.originals`. MB/s counts \
        payload bytes (10^6), not the 48-byte header or the metadata.

        \(DiskRow.table(rows).rendered)

        - Writes without fsync end in the OS page cache; the kernel writes them back later, \
        outside the timed loop. With fsync, each entry waits for the device before it is renamed into place.
        - Reads are warm: every entry was just written, so its bytes come from the OS page cache, \
        not the device. Each read still checks the entry's SHA-256 and refreshes its modification \
        time (a file system call). Cold reads (after a reboot or dropping the page cache) would be slower.
        - Every write and read takes the cache's in-process mutex; writes also take the directory's \
        `flock` and append to the journal.
        - Creating files can dominate small writes: e.g. ext4 without a journal passes over \
        recently deleted inodes when it allocates one, and this benchmark deletes each run's \
        files. Run with TMPDIR=/dev/shm (tmpfs) to see the cache's own cost without the device \
        and the on-disk file system.

        """
}

let settings: Settings
do {
    switch try Invocation(arguments: Array(CommandLine.arguments.dropFirst())) {
    case .help:
        print(Invocation.usage)
        exit(0)
    case .run(let chosen):
        settings = chosen
    }
} catch {
    progress("cache-benchmark: \(error)\n\n\(Invocation.usage)")
    exit(64)
}

let scratch: TemporaryDirectory
do {
    scratch = try TemporaryDirectory()
} catch {
    fail(error)
}

do {
    print(header(settings, scratch: scratch.path))
    progress("cache-benchmark: MemoryCache (\(settings.name) runs)")
    print(try await memorySection(settings))
    progress("cache-benchmark: DiskCache in \(scratch.path)")
    print(try diskSection(settings, scratch: scratch.path))
    print("Load average at the end: \(Machine.loadAverage)")
    try scratch.remove()
} catch {
    try? scratch.remove()
    fail(error)
}
