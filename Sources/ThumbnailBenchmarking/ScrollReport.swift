import ThumbnailKit

/// What a simulated scroll saw: rows shown and cancelled, images right or
/// wrong, how long rows waited for their image, and what it cost.
public struct ScrollReport: Sendable {
    /// Positions the window stopped at.
    public var steps = 0
    /// Distinct rows that came on screen.
    public var rowsDisplayed: Set<Int> = []
    /// Distinct rows that showed an image while on screen.
    public var rowsShown: Set<Int> = []
    /// Rows that showed another row's image at some moment (must stay empty).
    public var rowsShownWrong: Set<Int> = []
    /// Rows that left the screen while their image was still loading (their work was cancelled).
    public var rowsLeftLoading: Set<Int> = []
    /// For each time a row showed its image: how long after it came on screen.
    public var latencies: [Duration] = []
    /// The most the memory cache held at any observed moment, in bytes.
    public var peakMemoryCost = 0
    /// The memory cache's budget.
    public var memoryCostLimit = 0
    /// Memory-cache evictions during the scroll.
    public var evictions = 0
    /// What the pipeline did during the scroll.
    public var pipeline = PipelineStatistics()
    /// From the first step until the last visible rows settled.
    public var duration: Duration = .zero

    /// The latency below which `fraction` (0…1) of the showings fall; `nil` when nothing showed.
    public func latency(percentile fraction: Double) -> Duration? {
        guard !latencies.isEmpty else { return nil }
        let sorted = latencies.sorted()
        let index = min(sorted.count - 1, max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))
        return sorted[index]
    }
}
