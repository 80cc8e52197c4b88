import TestSupport
import Testing
import ThumbnailBenchmarking
import ThumbnailHTTP
import ThumbnailKit

/// A fast scroll through a long list against the loopback server: every row
/// that shows an image shows its own, rows that left early had their transfers
/// cancelled, and the memory cache never exceeds its budget.
@Suite @MainActor final class ScrollSimulatorTests {
    let server: TestHTTPServer

    init() throws {
        server = try TestHTTPServer()
    }

    deinit { server.stop() }

    @Test func aFastScrollThroughFiveHundredRows() async throws {
        let rowCount = 500
        // Every fourth image above the last screenful stops after half its body
        // and never sends the rest: however loaded the machine, only a
        // cancellation ends it. The others arrive at once, so rows show images
        // and cells are reused while completions land.
        let isSlow = { (row: Int) in row % 4 == 0 && row < rowCount - 10 }
        let never = ResponseGate()
        for row in 0..<rowCount {
            var behavior = TestHTTPServer.Behavior(body: try NumberedImage.png(row))
            if isSlow(row) { behavior.holdAfter = (bytes: behavior.body.count / 2, gate: never) }
            server.route("/\(row).png", behavior)
        }
        let budget = 10 * 32 * 32 * 4  // ten thumbnails
        let pipeline = ThumbnailPipeline(configuration: .init(dataLoader: try HTTPDataLoader(), memoryCostLimit: budget))
        let rows = (0..<rowCount).map { row -> RowController in
            let controller = ThumbnailRowController(request: ThumbnailRequest(url: server.url("/\(row).png"), size: .fit(32)),
                                                    title: "row \(row)", provider: pipeline)
            return RowController(controller)
        }
        let list = ListController(rows: rows)
        let simulator = ScrollSimulator(list: list, observing: pipeline) { row, thumbnail in
            NumberedImage.number(in: thumbnail) == row
        }

        let report = await simulator.run(ScrollScript(visibleRows: 10, prefetchDistance: 10, rowsPerSecond: 500))

        #expect(report.rowsDisplayed.count == rowCount)
        #expect(report.rowsShownWrong.isEmpty, "rows that showed another row's image: \(report.rowsShownWrong.sorted())")
        #expect(report.rowsShown.isSuperset(of: 490..<500), "the rows the scroll stopped at show their images")
        #expect(list.cellCount == 10)

        // Slow rows that scrolled away unshown: never requested, or the server saw the client hang up.
        let abandoned = (0..<rowCount).filter(isSlow)
        #expect(report.rowsShown.isDisjoint(with: abandoned))
        #expect(abandoned.count > 50)
        let unfinished = { abandoned.filter { self.server.requestCount("/\($0).png") > 0 && self.server.earlyCloseCount("/\($0).png") == 0 } }
        #expect(try await eventually { unfinished().isEmpty }, "transfers not cancelled: \(unfinished())")
        #expect(!report.rowsLeftLoading.isEmpty)

        #expect(report.peakMemoryCost <= budget && report.memoryCostLimit == budget)
        #expect(report.evictions > 0, "the budget was under pressure")
        #expect(pipeline.memoryStatistics.totalCost <= budget)
    }
}
