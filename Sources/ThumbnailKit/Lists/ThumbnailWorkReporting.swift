/// The role "what a thumbnail provider holds and has done": read by a list's
/// status line and by the benchmark harness, apart from ``ThumbnailProviding``
/// so rows never depend on it. ``ThumbnailPipeline`` plays it.
package protocol ThumbnailWorkReporting: Sendable {
    /// A snapshot taken now.
    var workReport: ThumbnailWorkReport { get }
}

/// A snapshot of a thumbnail provider's memory tier and counters.
package struct ThumbnailWorkReport: Sendable, Hashable {
    /// Bytes the memory tier holds now.
    package var memoryCost = 0
    /// The memory tier's budget, in bytes.
    package var memoryCostLimit = 0
    /// Thumbnails the memory tier has evicted so far.
    package var memoryEvictions = 0
    /// Requests being worked on now.
    package var inFlight = 0
    /// What the provider has done so far.
    package var statistics = PipelineStatistics()

    package init() {}
}

extension ThumbnailPipeline: ThumbnailWorkReporting {
    package var workReport: ThumbnailWorkReport {
        let memory = memoryCache.statistics
        var report = ThumbnailWorkReport()
        report.memoryCost = memory.totalCost
        report.memoryCostLimit = memoryCache.costLimit
        report.memoryEvictions = memory.evictions
        report.inFlight = inFlightCount
        report.statistics = statistics
        return report
    }
}
