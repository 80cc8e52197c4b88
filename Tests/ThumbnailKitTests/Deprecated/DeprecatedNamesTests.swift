import TestSupport
import Testing
import ThumbnailHTTP

/// The names public API had before, as an app written against them uses them: each still compiles
/// and does what its replacement does. The tests are deprecated themselves, which keeps the
/// build free of the warnings the app would see.
@Suite(.timeLimit(.minutes(1))) @MainActor struct DeprecatedNamesTests {
    static let image = "jpeg-baseline-420-gradient-256x192.jpg"

    var request: ThumbnailRequest { ThumbnailRequest(url: Fixtures.testImage(Self.image), size: .fit(64)) }

    @available(*, deprecated)
    @Test func urlSessionDataLoaderIsTheHTTPLoader() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/a.txt", .init(body: Array("hello".utf8)))
        let loader: URLSessionDataLoader = try URLSessionDataLoader()
        #expect(try await loader.loadBytes(DataRequest(url: server.url("/a.txt"))) == Array("hello".utf8))
    }

    @available(*, deprecated)
    @Test func aRowLoaderMadeWithAPipelineLoadsFromIt() async throws {
        let pipeline = ThumbnailPipeline()
        let row = ThumbnailRowLoader(pipeline: pipeline)
        row.load(request)
        await row.waitForLoadingToComplete()
        #expect(row.currentState.value?.width == 64)
        #expect(pipeline.statistics.decodes == 1)
    }

    @available(*, deprecated)
    @Test func aRowControllerMadeWithAPipelineShowsAndPrefetchesFromIt() async throws {
        let pipeline = ThumbnailPipeline()
        let controller = ThumbnailRowController(request: request, title: "gradient", pipeline: pipeline)
        let list = ListController(rows: [RowController(controller)], pipeline: pipeline)
        list.display(rows: 0..<1)
        let cell = try #require(list.cell(forRow: 0))
        let loader = try #require(cell.content(as: ThumbnailRowLoader.self))
        await loader.waitForLoadingToComplete()
        #expect(cell.title == "gradient" && loader.currentState.value?.width == 64)
        #expect(pipeline.statistics.decodes == 1)
    }

    @available(*, deprecated)
    @Test func skipsUnneededScansChoosesTheScanSkippingPathOrLibjpegs() throws {
        let photo = try #require(TestImagesManifest.entry(prefix: "photo-", containing: "progressive"))
        let paths = try [true, false].map { skips in
            try ThumbnailDecoder(size: .fit(256), skipsUnneededScans: skips).decode(contentsOfFile: photo.path).report?.jpegPath
        }
        #expect(paths == [.skippingScans, .libjpeg])
        var decoder = ThumbnailDecoder()
        #expect(decoder.skipsUnneededScans, "the default, DC-only, skips scans too")
        decoder.skipsUnneededScans = false
        #expect(decoder.progressivePath == .libjpeg && !decoder.skipsUnneededScans)
    }

    @available(*, deprecated)
    @Test func rowsAreTheControllersTheListWasGiven() {
        let texts = (0..<3).map { _ in TextRow() }
        let list = ListController(rows: texts.map { RowController($0) })
        let rows = list.rows
        #expect(rows.count == 3)
        #expect(zip(rows, texts).allSatisfy { $0.dataSource as? TextRow === $1 })
    }

    @available(*, deprecated)
    @Test func rowsOfAListOfMadeRowsAreTheLiveControllersAndNewOnesForTheRest() {
        var made: [Int] = []
        let list = ListController(rowCount: 4) { index in
            made.append(index)
            return RowController(TextRow())
        }
        list.display(rows: 1..<2)
        let shown = list.row(at: 1)?.dataSource as? TextRow
        let rows = list.rows
        #expect(rows.count == 4 && shown != nil && rows[1].dataSource as? TextRow === shown)
        #expect(made == [1, 0, 2, 3], "the visible row's controller once, the three others now")
    }
}

/// A row with text and no image.
@MainActor private final class TextRow: RowDataSource {
    func configure(_ cell: ListCell) {
        cell.title = "text"
    }
}
