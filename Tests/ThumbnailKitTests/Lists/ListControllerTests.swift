import TestSupport
import Testing
import ThumbnailHTTP
import ThumbnailKit

/// The headless table: a fixed pool of reused cells, roles dispatched per row,
/// prefetches adopted by visible rows and cancelled when rows go away.
@Suite @MainActor final class ListControllerTests {
    let server: TestHTTPServer
    let pipeline: ThumbnailPipeline

    init() throws {
        server = try TestHTTPServer()
        pipeline = ThumbnailPipeline(configuration: .init(dataLoader: try HTTPDataLoader()))
    }

    deinit { server.stop() }

    /// Rows showing numbered images served at `/N.png`; `behavior` adjusts how each is served.
    func makeList(rows count: Int, behavior: (Int, inout TestHTTPServer.Behavior) -> Void = { _, _ in }) throws -> ListController {
        let rows = try (0..<count).map { number -> RowController in
            var served = TestHTTPServer.Behavior(body: try NumberedImage.png(number))
            behavior(number, &served)
            server.route("/\(number).png", served)
            let row = ThumbnailRowController(request: ThumbnailRequest(url: server.url("/\(number).png"), size: .fit(32)),
                                             title: "item \(number)", pipeline: pipeline)
            return RowController(dataSource: row, prefetching: row)
        }
        return ListController(rows: rows, pipeline: pipeline)
    }

    /// A slow response: about three seconds of trickled body, so a row can
    /// leave mid-transfer, and only a client that hangs up early ends it early.
    static func slow(_: Int, _ behavior: inout TestHTTPServer.Behavior) {
        behavior.trickle = (chunk: max(1, behavior.body.count / 30), pause: .milliseconds(100))
    }

    @Test func cellsComeFromAPoolAsBigAsTheVisibleRows() async throws {
        let list = try makeList(rows: 100)
        for top in 0...90 { list.display(rows: top..<(top + 10)) }
        #expect(list.cellCount == 10)
        #expect(list.visibleRows == 90..<100)
        for (row, cell) in list.visibleCells {
            #expect(cell.title == "item \(row)")
            await cell.thumbnail.waitForLoadingToComplete()
            #expect(cell.thumbnail.currentState.value.flatMap(NumberedImage.number(in:)) == row)
        }
        #expect(list.visibleCells.map(\.cell.useCount).reduce(0, +) == 100, "91 windows: 10 + 90 rows arrived")
    }

    @Test func theVisibleRangeIsClampedToTheRows() throws {
        let list = try makeList(rows: 5)
        list.display(rows: 3..<12)
        #expect(list.visibleRows == 3..<5 && list.visibleCells.map(\.row) == [3, 4])
        list.prefetch(rows: 0..<40)
        #expect(list.prefetchingRows == [0, 1, 2])
    }

    /// A row with only a data source and a delegate: text, no image, no prefetching.
    @MainActor final class TextRow: RowDataSource, RowDelegate {
        let text: String
        let log: Log

        @MainActor final class Log {
            var events: [String] = []
        }

        init(_ text: String, log: Log) {
            self.text = text
            self.log = log
        }

        func configure(_ cell: ListCell) { cell.title = text }
        func willDisplay(_ cell: ListCell) { log.events.append("show \(text) in \(cell.id)") }
        func didEndDisplaying(_ cell: ListCell) { log.events.append("hide \(text) from \(cell.id)") }
    }

    @Test func eachRowPlaysOnlyTheRolesItHas() {
        let log = TextRow.Log()
        let rows = (0..<6).map { RowController(dataSource: TextRow("t\($0)", log: log), delegate: TextRow("t\($0)", log: log)) }
        let list = ListController(rows: rows, pipeline: pipeline)
        list.display(rows: 0..<2)
        list.prefetch(rows: 2..<4)  // no prefetching role: nothing to start, and nothing breaks
        list.display(rows: 1..<3)
        #expect(log.events == ["show t0 in 1", "show t1 in 2", "hide t0 from 1", "show t2 in 1"])
        #expect(list.cell(forRow: 2)?.title == "t2" && list.cell(forRow: 0) == nil)
        #expect(list.cell(forRow: 2)?.thumbnail.currentState.isIdle == true)
    }

    @Test func aPrefetchedRowShownLaterCostsOneGET() async throws {
        let list = try makeList(rows: 20)
        list.prefetch(rows: 0..<10)
        #expect(try await eventually { self.pipeline.memoryCache.statistics.count == 10 })
        list.display(rows: 0..<10)
        for (row, cell) in list.visibleCells {
            #expect(cell.thumbnail.currentState.value.flatMap(NumberedImage.number(in:)) == row, "shown at once from memory")
        }
        #expect((0..<10).allSatisfy { server.requestCount("/\($0).png") == 1 })
    }

    @Test func aRowShownWhilePrefetchingAdoptsTheDownload() async throws {
        let gate = ResponseGate()
        let list = try makeList(rows: 10) { _, behavior in behavior.gate = gate }
        list.prefetch(rows: 0..<5)
        #expect(try await eventually { (0..<5).allSatisfy { self.server.requestCount("/\($0).png") == 1 } })
        list.display(rows: 0..<5)
        #expect(list.visibleCells.allSatisfy { $0.cell.thumbnail.currentState.isLoading })
        gate.open()
        for (row, cell) in list.visibleCells {
            await cell.thumbnail.waitForLoadingToComplete()
            #expect(cell.thumbnail.currentState.value.flatMap(NumberedImage.number(in:)) == row)
        }
        #expect((0..<5).allSatisfy { server.requestCount("/\($0).png") == 1 })
        #expect(pipeline.statistics.downloads == 5 && pipeline.statistics.decodes == 5)
    }

    @Test func aRowThatScrollsAwayCancelsItsDownload() async throws {
        let list = try makeList(rows: 10, behavior: Self.slow)
        list.display(rows: 0..<1)
        #expect(try await eventually { self.server.requestCount("/0.png") == 1 })
        list.display(rows: 5..<6)
        #expect(try await eventually { self.server.earlyCloseCount("/0.png") == 1 })
    }

    @Test func aRowThatScrollsAwayLeavesWorkAnotherWaiterNeeds() async throws {
        let list = try makeList(rows: 10, behavior: Self.slow)
        let otherWaiter = Task { try await pipeline.thumbnail(for: ThumbnailRequest(url: server.url("/0.png"), size: .fit(32))) }
        list.display(rows: 0..<1)
        #expect(try await eventually { self.server.requestCount("/0.png") == 1 })
        list.display(rows: 5..<6)
        #expect(try await NumberedImage.number(in: otherWaiter.value) == 0)
        #expect(server.requestCount("/0.png") == 1 && server.earlyCloseCount("/0.png") == 0)
    }

    @Test func rowsLeavingThePrefetchWindowStopPrefetching() async throws {
        let list = try makeList(rows: 30, behavior: Self.slow)
        list.prefetch(rows: 10..<13)
        #expect(try await eventually { (10..<13).allSatisfy { self.server.requestCount("/\($0).png") == 1 } })
        list.prefetch(rows: 20..<23)
        #expect(list.prefetchingRows == [20, 21, 22])
        #expect(try await eventually { (10..<13).allSatisfy { self.server.earlyCloseCount("/\($0).png") == 1 } })
    }

    @Test func aVisibleRowKeepsItsPrefetchUntilItLeaves() async throws {
        let list = try makeList(rows: 30, behavior: Self.slow)
        list.prefetch(rows: 0..<1)
        #expect(try await eventually { self.server.requestCount("/0.png") == 1 })
        list.display(rows: 0..<1)
        list.prefetch(rows: 1..<2)  // row 0 left the window, but it is on screen
        #expect(list.prefetchingRows == [0, 1])
        list.display(rows: 10..<11)
        #expect(list.prefetchingRows == [1])
        #expect(try await eventually { self.server.earlyCloseCount("/0.png") == 1 })
    }
}
