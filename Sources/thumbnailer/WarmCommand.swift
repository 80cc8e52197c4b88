import ArgumentParser
import CommandLineSupport
import Logging
import ThumbnailFeeds
import ThumbnailHTTP
import ThumbnailKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `thumbnailer warm <feed>`: download every image of a feed and store its
/// original and thumbnails in the disk cache, so that a list showing the feed
/// later downloads nothing.
struct WarmCommand: AsyncParsableCommand, TunesAllocator {
    static let configuration = CommandConfiguration(
        commandName: "warm",
        abstract: "Prebuild the caches from a feed (JSON Feed, RSS, Atom, plain JSON).",
        discussion: """
            With --store, thumbnails go to an S3-compatible object store as well as the disk cache; \
            an image whose thumbnails the store has (a HEAD each, metadata checked) is skipped \
            without a download. With --shard i/n, only the images whose URL digest falls in slice \
            i (from 0) of n are warmed: n processes on n machines split any feed with no \
            coordination. --shard-count n takes i from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) \
            or from SLURM_ARRAY_TASK_ID (a Slurm array job numbered from 0: sbatch --array=0-3).

            Exit status: 0 when every image is cached, 1 when some failed (the summary lists \
            them with the reason; an image the disk or the store had no room for, even for one \
            thumbnail, is one of them) or when the disk limit is too small for the feed (the run \
            evicted images it had cached to make room for later ones), 75 (EX_TEMPFAIL) when some \
            failed for a reason a later run may not meet (the origin or the store unreachable, \
            timing out, or answering 5xx, 429 or 408: a scheduler may run it again, and that run \
            does only what is missing; Slurm's RequeueExit=75 does) and the disk limit held the \
            feed, 2 when the feed itself could not be fetched or parsed, or \
            the store cannot be used (wrong credentials, no such bucket), 64 on usage errors, 130 \
            when interrupted (Ctrl-C; run again to finish the rest).
            """)

    @OptionGroup var source: FeedOptions

    @OptionGroup var store: StoreOptions

    @Option(help: "Warm only slice I (from 0) of N of the feed's images, chosen by URL digest: I/N.")
    var shard: WarmShard?

    @Option(help: "Warm the slice of this many that the scheduler names: $JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) or $SLURM_ARRAY_TASK_ID (a Slurm array job, numbered from 0).")
    var shardCount: Int?

    static let workload = ProcessMemory.Workload.batch

    /// The exit status of a run that may do better when run again (sysexits' EX_TEMPFAIL).
    static let exitCodeWorthRetrying: Int32 = 75

    @Option(name: [.short, .long], help: "Thumbnail box: 256 or 320x200 to fit in, fill:256 or fill:320x200 to fill (scaled to cover, the centre kept); repeat for several sizes (default 256).")
    var size: [ThumbnailSize] = []

    @Option(help: "Images downloaded at once.")
    var concurrency = 6

    @Option(help: "Images decoded at once (default: one per core).")
    var decoders: Int?

    @OptionGroup var decoderMemory: DecoderMemoryOption

    @Flag(help: "Revalidate stored originals (ETag/Last-Modified) and download only what changed.")
    var refresh = false

    @Flag(help: "Print the summary as one JSON object.")
    var json = false

    @Flag(help: "Print only the summary.")
    var quiet = false

    @Flag(help: "Log every request to stderr.")
    var verbose = false

    func validate() throws {
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1") }
        if let decoders, decoders < 1 { throw ValidationError("--decoders must be at least 1") }
        if refresh, store.store != nil { throw ValidationError("--refresh revalidates the disk cache's originals; it does not combine with --store") }
        if shard != nil, shardCount != nil { throw ValidationError("give --shard or --shard-count, not both") }
        if let shardCount {
            try LimitOption.validate(shardCount, "--shard-count")
            _ = try slice()
        }
        if size.contains(where: { ($0.maxWidth ?? 1) < 1 || ($0.maxHeight ?? 1) < 1 || $0 == .original }) {
            throw ValidationError("a size is a positive box like 256 or 320x200")
        }
    }

    /// The slice asked for: `--shard`, or `--shard-count` with the index the scheduler gives
    /// (``ScheduledTaskIndex``).
    private func slice() throws -> WarmShard {
        if let shard { return shard }
        guard let shardCount else { return .all }
        let index = ScheduledTaskIndex(environment: { getenv($0).map { String(cString: $0) } })
        guard let number = index.value, let shard = WarmShard(index: number, count: shardCount) else {
            throw ValidationError("--shard-count \(shardCount) needs \(index.source) between 0 and \(shardCount - 1)"
                                  + (index.text.map { ", not \($0)" } ?? ", which is not set"))
        }
        return shard
    }

    func run() async throws {
        let clock = ContinuousClock()
        let started = clock.now
        let sizes = Set(size.isEmpty ? [.fit(256)] : size)
        let shard = try slice()
        let cache = try source.cache.open()
        let objectStore = try await store.open()
        let feed = try await source.loadImages(in: shard)

        var wiring = PipelineWiring(source: source, diskCache: cache, store: store, objectStore: objectStore)
        wiring.memoryCostLimit = 0  // a warm-up never asks for a thumbnail twice
        wiring.maximumConcurrentDownloads = concurrency
        if let decoders { wiring.maximumConcurrentDecodes = decoders }
        wiring.decoder = ThumbnailDecoder(limits: decoderMemory.limits)
        wiring.logger = Logger(label: "thumbnailer.warm")
        wiring.logger.logLevel = verbose ? .debug : .critical
        let pipeline = wiring.makePipeline()
        let display = WarmProgressDisplay(style: quiet || json ? .silent : .forStandardError, total: feed.count)

        let warmer = CacheWarmer(pipeline: pipeline, sizes: sizes)
        let revalidate = refresh
        let cancellation = CancellationSwitch()
        // Listening before any work starts: a Ctrl-C at any moment stops the run cleanly.
        let interruption = Interruption { cancellation.cancel() }
        let warming = Task { [urls = feed.urls, count = feed.count] in
            await warmer.warm(urls, count: count, revalidate: revalidate) { display.show($0) }
        }
        cancellation.attach(warming)
        let report = await warming.value
        interruption.stop()
        display.finish()

        let summary = WarmSummary(feedLocation: source.feed, feed: feed, store: objectStore.map { ($0.configuration.location, $0.objectsWritten) },
                                  sizes: sizes, report: report,
                                  cache: cache, elapsed: clock.now - started,
                                  peakResidentBytes: ProcessMemory.peakResidentBytes,
                                  peakConcurrentDecodes: pipeline.peakConcurrentDecodes,
                                  interrupted: interruption.happened)
        print(json ? summary.json : summary.text)
        if interruption.happened { throw ExitCode(130) }
        if !summary.succeeded { throw ExitCode(summary.worthRetrying ? Self.exitCodeWorthRetrying : 1) }
    }
}
