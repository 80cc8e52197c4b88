import ThumbnailKit

/// Replays a ``ScrollScript`` on a ``ListController`` in real time and
/// reports what a user would have seen: for tests of the list machinery and
/// for the memory benchmark.
///
/// Each step makes the next rows visible and prefetches ahead of them, then
/// waits for the script's pace. Every state change of every cell is checked at
/// once: a loaded cell must show its own row's image (`verify`), and the
/// provider's memory cost is sampled. Cells are watched through their
/// ``ThumbnailRowLoader`` content; cells without one are only counted. After the last step, the simulator waits
/// for the rows still on screen to finish loading.
@MainActor package final class ScrollSimulator {
    private let list: ListController
    private let work: any ThumbnailWorkReporting
    private let verify: (Int, Thumbnail) -> Bool
    private var report = ScrollReport()
    /// Rows on screen now: since when, and whether their image has shown during this visit.
    private var visits: [Int: (since: ContinuousClock.Instant, shown: Bool)] = [:]
    private var observedCells: Set<Int> = []
    private var observers: [Task<Void, Never>] = []

    /// - Parameters:
    ///   - work: what the rows' provider holds and has done (a ``ThumbnailPipeline``).
    ///   - verify: whether a thumbnail is the image of a row (by its pixels, say).
    package init(list: ListController, observing work: any ThumbnailWorkReporting,
                verify: @escaping (_ row: Int, Thumbnail) -> Bool) {
        self.list = list
        self.work = work
        self.verify = verify
    }

    /// Runs `script` to its end (cancelling the calling task stops it early).
    /// - Parameter afterEachStep: called with the visible rows after each step
    ///   (a strategy that releases what is far from them, say).
    package func run(_ script: ScrollScript, afterEachStep: ((Range<Int>) -> Void)? = nil) async -> ScrollReport {
        report = ScrollReport()
        let before = work.workReport
        report.memoryCostLimit = before.memoryCostLimit
        let clock = ContinuousClock()
        let started = clock.now
        let pace = Duration.seconds(1 / script.rowsPerSecond)
        let tops = script.tops(rowCount: list.rowCount)

        for (step, top) in tops.enumerated() {
            let previousTop = step > 0 ? tops[step - 1] : top
            show(top: top, movingDown: top >= previousTop, script: script)
            afterEachStep?(list.visibleRows)
            report.steps += 1
            do {
                try await clock.sleep(until: started + pace * (step + 1))
            } catch {
                break
            }
        }
        for (_, cell) in list.visibleCells { await cell.content(as: ThumbnailRowLoader.self)?.waitForLoadingToComplete() }
        for (_, cell) in list.visibleCells { examine(cell) }
        report.duration = clock.now - started
        for observer in observers { observer.cancel() }
        observers = []
        observedCells = []
        visits = [:]
        let after = work.workReport
        report.pipeline = after.statistics.subtracting(before.statistics)
        report.evictions = after.memoryEvictions - before.memoryEvictions
        return report
    }

    private func show(top: Int, movingDown: Bool, script: ScrollScript) {
        let visible = top..<(top + script.visibleRows)
        let now = ContinuousClock.now
        for row in list.visibleRows where !visible.contains(row) {
            if let loader = list.cell(forRow: row)?.content(as: ThumbnailRowLoader.self), loader.currentState.isLoading {
                report.rowsLeftLoading.insert(row)
            }
            visits[row] = nil
        }
        list.display(rows: visible)
        list.prefetch(rows: movingDown
            ? visible.upperBound..<(visible.upperBound + script.prefetchDistance)
            : max(0, visible.lowerBound - script.prefetchDistance)..<visible.lowerBound)
        for (row, cell) in list.visibleCells {
            if visits[row] == nil {
                visits[row] = (now, false)
                report.rowsDisplayed.insert(row)
            }
            observe(cell)
            examine(cell)
        }
    }

    /// Examines `cell` at each of its state changes, for as long as the run lasts.
    private func observe(_ cell: ListCell) {
        guard let loader = cell.content(as: ThumbnailRowLoader.self), observedCells.insert(cell.id).inserted else { return }
        let states = loader.state
        observers.append(Task { [weak self] in
            for await _ in states { self?.examine(cell) }
        })
    }

    /// Records what `cell` shows now: a first showing of its row's image (with
    /// its latency), or a wrong image; samples the memory cache.
    private func examine(_ cell: ListCell) {
        report.peakMemoryCost = max(report.peakMemoryCost, work.workReport.memoryCost)
        guard let row = list.row(of: cell),
              let thumbnail = cell.content(as: ThumbnailRowLoader.self)?.currentState.value else { return }
        if !verify(row, thumbnail) { report.rowsShownWrong.insert(row) }
        if let visit = visits[row], !visit.shown {
            visits[row]?.shown = true
            report.rowsShown.insert(row)
            report.latencies.append(ContinuousClock.now - visit.since)
        }
    }
}
