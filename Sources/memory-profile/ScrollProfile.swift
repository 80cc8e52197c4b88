import CommandLineSupport
import ThumbnailBenchmarking
import ThumbnailKit

/// A scroll through a list under one ``ProfileStrategy``, measured.
struct ScrollProfile {
    let strategy: ProfileStrategy
    let budget: Int
    let windowMargin: Int
    let cacheDirectory: String
    let thumbnailSize: Int

    /// The size rows are shown at: the original for naive and window, a thumbnail box for thumbnailer.
    var size: ThumbnailSize { strategy == .thumbnailer ? .fit(thumbnailSize) : .original }

    /// Runs `script` over rows showing `imageURLs`; row n must look like `references[n % count]`.
    /// A disk cache the directory cannot hold throws: a profile without it would measure another thing.
    @MainActor func run(imageURLs: [String], script: ScrollScript, references: [ImageFingerprint]) async throws -> JSONLine {
        let fullSize = strategy != .thumbnailer
        var wiring = PipelineWiring(diskCache: strategy == .naive ? nil : try DiskCache(directory: cacheDirectory))
        // The naive and window strategies hold what they decoded until they decide otherwise: no budget.
        wiring.memoryCostLimit = fullSize ? Int.max / 4 : budget
        let pipeline = wiring.makePipeline()
        let size = size
        let rows = imageURLs.enumerated().map { index, url in
            let row = ThumbnailRowController(request: ThumbnailRequest(url: url, size: size), title: "\(index)", provider: pipeline)
            return RowController(row)
        }
        let list = ListController(rows: rows)
        let simulator = ScrollSimulator(list: list, observing: pipeline) { row, thumbnail in
            references.isEmpty || ImageFingerprint(thumbnail).matches(references[row % references.count])
        }
        let margin = windowMargin
        let release: ((Range<Int>) -> Void)? = strategy != .window ? nil : { visible in
            let kept = (visible.lowerBound - margin)..<(visible.upperBound + margin)
            for (index, url) in imageURLs.enumerated() where !kept.contains(index) {
                pipeline.removeFromMemory(ThumbnailRequest(url: url, size: size))
            }
        }
        let report = await simulator.run(script, afterEachStep: release)

        let cache = pipeline.memoryStatistics
        var line = JSONLine()
        line.add("strategy", strategy.rawValue)
        line.add("budgetBytes", strategy == .thumbnailer ? budget : nil)
        line.add("rowsPerSecond", script.rowsPerSecond)
        line.add("rows", imageURLs.count)
        line.add("steps", report.steps)
        line.add("rowsDisplayed", report.rowsDisplayed.count)
        line.add("rowsShown", report.rowsShown.count)
        line.add("rowsShownWrong", report.rowsShownWrong.count)
        line.add("rowsLeftLoading", report.rowsLeftLoading.count)
        line.add("latencyMedianMs", report.latency(percentile: 0.5).map(Self.milliseconds))
        line.add("latencyP95Ms", report.latency(percentile: 0.95).map(Self.milliseconds))
        line.add("downloads", report.pipeline.downloads)
        line.add("bytesDownloaded", report.pipeline.bytesDownloaded)
        line.add("decodes", report.pipeline.decodes)
        line.add("memoryHits", cache.hits)
        line.add("memoryMisses", cache.misses)
        line.add("peakMemoryCacheBytes", report.peakMemoryCost)
        line.add("durationSeconds", Self.milliseconds(report.duration) / 1000)
        line.add("peakRSSBytes", ProcessMemory.peakResidentBytes)
        line.add("endRSSBytes", ProcessMemory.residentBytes)
        return line
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        (duration.inSeconds * 10_000).rounded() / 10
    }
}
