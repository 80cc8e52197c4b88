import ThumbnailKit

/// What a simulated scroll saw: rows shown and cancelled, images right or
/// wrong, how long rows waited for their image, and what it cost.
package struct ScrollReport: Sendable {
    /// Positions the window stopped at.
    package var steps = 0
    /// Distinct rows that came on screen.
    package var rowsDisplayed: Set<Int> = []
    /// Distinct rows that showed an image while on screen.
    package var rowsShown: Set<Int> = []
    /// Rows that showed another row's image at some moment (must stay empty).
    package var rowsShownWrong: Set<Int> = []
    /// Rows that left the screen while their image was still loading (their work was cancelled).
    package var rowsLeftLoading: Set<Int> = []
    /// For each time a row showed its image: how long after it came on screen.
    package var latencies: [Duration] = []
    /// The most the memory cache held at any observed moment, in bytes.
    package var peakMemoryCost = 0
    /// The memory cache's budget.
    package var memoryCostLimit = 0
    /// Memory-cache evictions during the scroll.
    package var evictions = 0
    /// What the pipeline did during the scroll.
    package var pipeline = PipelineStatistics()
    /// From the first step until the last visible rows settled.
    package var duration: Duration = .zero

    /// The latency below which `fraction` (0…1) of the showings fall; `nil` when nothing showed.
    package func latency(percentile fraction: Double) -> Duration? {
        guard !latencies.isEmpty else { return nil }
        let sorted = latencies.sorted()
        let index = min(sorted.count - 1, max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))
        return sorted[index]
    }
}
