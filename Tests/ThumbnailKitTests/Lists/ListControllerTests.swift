import TestSupport
import Testing
import ThumbnailKit

/// The headless table against a spy provider: a fixed pool of reused cells,
/// roles dispatched per row, a content slot that is up to the rows, and
/// prefetches started, kept and stopped as rows come and go.
@Suite(.timeLimit(.minutes(1))) @MainActor struct ListControllerTests {
    let provider = SpyThumbnailProvider()

    func request(_ row: Int) -> ThumbnailRequest {
        ThumbnailRequest(url: "\(row)", size: .fit(32))
    }

    /// Thumbnail rows whose request URL is the row's number.
    func makeList(rows count: Int) -> ListController {
        ListController(rows: (0..<count).map { row in
            RowController(ThumbnailRowController(request: request(row), title: "item \(row)", provider: provider))
        })
    }

    func image(_ number: Int) throws -> Thumbnail {
        try ThumbnailDecoder(size: .fit(32)).decode(NumberedImage.png(number), cancellation: nil)
    }

    @Test func cellsComeFromAPoolAsBigAsTheVisibleRows() async throws {
        let list = makeList(rows: 100)
        for top in 0...90 { list.display(rows: top..<(top + 10)) }
        #expect(list.cellCount == 10)
        #expect(list.visibleRows == 90..<100)
        let visible = (90..<100).map(String.init)
        #expect(try await eventually { Set(self.provider.waitingURLs) == Set(visible) }, "\(provider.waitingURLs)")
        for row in 90..<100 { provider.complete("\(row)", with: try image(row)) }
        for (row, cell) in list.visibleCells {
            #expect(cell.title == "item \(row)")
            await cell.loader?.waitForLoadingToComplete()
            #expect(cell.loader?.currentState.value.flatMap(NumberedImage.number(in:)) == row)
        }
        #expect(list.visibleCells.map(\.cell.useCount).reduce(0, +) == 100, "91 windows: 10 + 90 rows arrived")
    }

    @Test func theVisibleRangeIsClampedToTheRows() {
        let list = makeList(rows: 5)
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
        let rows = (0..<6).map { RowController(TextRow("t\($0)", log: log)) }
        let list = ListController(rows: rows)
        list.display(rows: 0..<2)
        list.prefetch(rows: 2..<4)  // no prefetching role: nothing to start, and nothing breaks
        list.display(rows: 1..<3)
        #expect(log.events == ["show t0 in 1", "show t1 in 2", "hide t0 from 1", "show t2 in 1"])
        #expect(list.cell(forRow: 2)?.title == "t2" && list.cell(forRow: 0) == nil)
        #expect(list.cell(forRow: 2)?.content == nil, "a text row's cell holds no loader")
    }

    /// A row that loads a string, not a thumbnail: the cell's content is what the row puts there.
    @MainActor final class GreetingRow: RowDataSource {
        let name: String

        init(_ name: String) {
            self.name = name
        }

        final class Greeting: ReusableContent {
            var text: String?
            var reuses = 0
            func prepareForReuse() {
                text = nil
                reuses += 1
            }
        }

        func configure(_ cell: ListCell) {
            cell.content(orMake: { Greeting() }).text = "hello \(name)"
        }
    }

    @Test func aCellsContentIsWhateverItsRowsPutThere() {
        let list = ListController(rows: ["ada", "alan", "grace"].map { RowController(GreetingRow($0)) })
        list.display(rows: 0..<1)
        let greeting = list.cell(forRow: 0)?.content(as: GreetingRow.Greeting.self)
        #expect(greeting?.text == "hello ada")
        #expect(list.cell(forRow: 0)?.content(as: ThumbnailRowLoader.self) == nil)
        list.display(rows: 2..<3)
        #expect(list.cell(forRow: 2)?.content(as: GreetingRow.Greeting.self) === greeting, "the content is reused")
        #expect(greeting?.text == "hello grace" && greeting?.reuses == 1)
    }

    /// A list of a million rows makes a row's controller when the row shows or prefetches, keeps that one
    /// while it stays so, and lets go of it after: it holds a few pages of controllers, never one a row.
    @Test func aMillionRowsHoldOnlyTheControllersOfTheRowsShownAndPrefetched() {
        final class Made {
            var rows: [Int] = []
            var controllers: [Int: () -> AllRolesRow?] = [:]
        }
        let made = Made()
        let list = ListController(rowCount: 1_000_000) { row in
            let controller = AllRolesRow()
            made.rows.append(row)
            made.controllers[row] = { [weak controller] in controller }
            return RowController(controller)
        }
        list.display(rows: 0..<5)
        list.prefetch(rows: 5..<10)
        list.display(rows: 1..<6)
        list.prefetch(rows: 6..<11)
        #expect(made.rows == Array(0..<11), "each row made once while it stays shown or prefetching")
        #expect(made.controllers[5]?()?.events == ["prefetch", "configure", "willDisplay"], "the row that prefetched is the one shown")

        list.display(rows: 999_995..<1_000_000)
        list.prefetch(rows: 999_990..<999_995)
        #expect(made.rows.count == 21)
        #expect((0..<11).allSatisfy { made.controllers[$0]?() == nil }, "rows that left are let go")
        #expect((999_990..<1_000_000).allSatisfy { made.controllers[$0]?() != nil })
    }

    /// One object playing several roles makes a row in one call; each role is dispatched to it.
    @MainActor final class AllRolesRow: RowDataSource, RowDelegate, RowPrefetching {
        var events: [String] = []
        func configure(_ cell: ListCell) { events.append("configure") }
        func willDisplay(_ cell: ListCell) { events.append("willDisplay") }
        func didEndDisplaying(_ cell: ListCell) { events.append("didEndDisplaying") }
        func prefetch() { events.append("prefetch") }
        func cancelPrefetch() { events.append("cancelPrefetch") }
    }

    @Test func aRowFromOneObjectPlaysEveryRoleItHas() {
        let rows = [AllRolesRow(), AllRolesRow()]
        let controllers = rows.map { RowController($0) }
        let list = ListController(rows: controllers)
        #expect(controllers.allSatisfy { $0.delegate != nil && $0.prefetching != nil })
        list.prefetch(rows: 1..<2)
        list.display(rows: 0..<1)
        list.prefetch(rows: 0..<0)
        list.display(rows: 1..<2)
        #expect(rows[0].events == ["configure", "willDisplay", "didEndDisplaying"])
        #expect(rows[1].events == ["prefetch", "cancelPrefetch", "configure", "willDisplay"])
        let partial = RowController(ThumbnailRowController(request: request(0), title: "", provider: provider))
        #expect(partial.delegate == nil && partial.prefetching != nil)
    }

    @Test func aPrefetchedRowShownLaterIsRequestedOnce() async throws {
        let list = makeList(rows: 20)
        list.prefetch(rows: 0..<10)
        #expect(try await eventually { self.provider.waitingURLs.count == 10 })
        for row in 0..<10 {
            // What the pipeline does with a finished request: its memory tier has it.
            provider.cache(try image(row), for: request(row))
            provider.complete("\(row)", with: try image(row))
        }
        list.display(rows: 0..<10)
        for (row, cell) in list.visibleCells {
            #expect(cell.loader?.currentState.value.flatMap(NumberedImage.number(in:)) == row, "shown at once")
        }
        #expect(provider.requestedURLs.sorted() == (0..<10).map(String.init).sorted(), "one request a row")
    }

    @Test func rowsLeavingThePrefetchWindowStopPrefetching() async throws {
        let list = makeList(rows: 30)
        list.prefetch(rows: 10..<13)
        #expect(try await eventually { self.provider.waitingURLs.count == 3 })
        list.prefetch(rows: 20..<23)
        #expect(list.prefetchingRows == [20, 21, 22])
        #expect(try await eventually { Set(self.provider.cancelledURLs) == ["10", "11", "12"] })
    }

    @Test func aVisibleRowKeepsItsPrefetchUntilItLeaves() async throws {
        let list = makeList(rows: 30)
        list.prefetch(rows: 0..<1)
        #expect(try await eventually { self.provider.waitingURLs == ["0"] })
        list.display(rows: 0..<1)
        list.prefetch(rows: 1..<2)  // row 0 left the window, but it is on screen
        #expect(list.prefetchingRows == [0, 1])
        #expect(try await eventually { self.provider.requests.count == 3 })
        #expect(provider.cancelledURLs.isEmpty, "neither row 0's prefetch nor its cell's load was stopped")
        list.display(rows: 10..<11)
        #expect(list.prefetchingRows == [1])
        #expect(try await eventually { self.provider.cancelledURLs.filter { $0 == "0" }.count == 2 },
                "row 0's prefetch and its cell's load stopped")
    }

    @Test func rowAtIsTheLiveControllerWhileVisibleAndAFreshOneOtherwise() {
        var made = 0
        let list = ListController(rowCount: 10) { row in
            made += 1
            return RowController(ThumbnailRowController(request: request(row), title: "item \(row)", provider: provider))
        }
        list.display(rows: 2..<3)
        let live = list.row(at: 2)?.dataSource as? ThumbnailRowController
        #expect(live != nil && list.row(at: 2)?.dataSource as? ThumbnailRowController === live && made == 1)
        let other = list.row(at: 5)?.dataSource as? ThumbnailRowController
        #expect(other?.title == "item 5" && made == 2)
        #expect(list.row(at: 5)?.dataSource as? ThumbnailRowController !== other, "a row not shown is not kept")
        #expect(list.row(at: 10) == nil && list.row(at: -1) == nil && made == 3)
    }
}
