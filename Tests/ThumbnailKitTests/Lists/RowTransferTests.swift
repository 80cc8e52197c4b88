import TestSupport
import Testing
import ThumbnailHTTP
import ThumbnailKit

/// Rows and the headless table on a real pipeline and the loopback server:
/// what rows coming, going and being reused do to transfers and to work
/// other callers share.
@Suite @MainActor final class RowTransferTests {
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
                                             title: "item \(number)", provider: pipeline)
            return RowController(row)
        }
        return ListController(rows: rows)
    }

    /// A response held mid-body until `gate` opens, so a row can leave mid-transfer
    /// however busy the machine is, and only a client that hangs up ends it early.
    static func held(by gate: ResponseGate) -> (Int, inout TestHTTPServer.Behavior) -> Void {
        { _, behavior in behavior.holdAfter = (bytes: behavior.body.count / 2, gate: gate) }
    }

    @Test func aRowShownWhilePrefetchingAdoptsTheDownload() async throws {
        let gate = ResponseGate()
        let list = try makeList(rows: 10) { _, behavior in behavior.gate = gate }
        list.prefetch(rows: 0..<5)
        #expect(try await eventually { (0..<5).allSatisfy { self.server.requestCount("/\($0).png") == 1 } })
        list.display(rows: 0..<5)
        #expect(list.visibleCells.allSatisfy { $0.cell.loader?.currentState.isLoading == true })
        gate.open()
        for (row, cell) in list.visibleCells {
            await cell.loader?.waitForLoadingToComplete()
            #expect(cell.loader?.currentState.value.flatMap(NumberedImage.number(in:)) == row)
        }
        #expect((0..<5).allSatisfy { server.requestCount("/\($0).png") == 1 })
        #expect(pipeline.statistics.downloads == 5 && pipeline.statistics.decodes == 5)
    }

    @Test(.timeLimit(.minutes(1)))
    func aRowThatScrollsAwayCancelsItsDownload() async throws {
        let list = try makeList(rows: 10, behavior: Self.held(by: ResponseGate()))
        list.display(rows: 0..<1)
        #expect(try await eventually { self.server.requestCount("/0.png") == 1 })
        list.display(rows: 5..<6)
        #expect(try await eventually { self.server.earlyCloseCount("/0.png") == 1 })
    }

    @Test(.timeLimit(.minutes(1)))
    func aRowThatScrollsAwayLeavesWorkAnotherWaiterNeeds() async throws {
        let gate = ResponseGate()
        let list = try makeList(rows: 10, behavior: Self.held(by: gate))
        let otherWaiter = Task { try await pipeline.thumbnail(for: ThumbnailRequest(url: server.url("/0.png"), size: .fit(32))) }
        list.display(rows: 0..<1)
        #expect(try await eventually { self.server.requestCount("/0.png") == 1 && self.server.heldResponses == 1 })
        list.display(rows: 5..<6)
        gate.open()
        #expect(try await NumberedImage.number(in: otherWaiter.value) == 0)
        #expect(server.requestCount("/0.png") == 1 && server.earlyCloseCount("/0.png") == 0)
    }

    @Test func reuseCancelsTheTransfer() async throws {
        // Half the body, then nothing until a gate that never opens: only the cancel can end
        // the transfer (a trickle could finish first on a busy machine, and no early close be seen).
        var slow = TestHTTPServer.Behavior(body: try NumberedImage.png(9))
        slow.holdAfter = (bytes: slow.body.count / 2, gate: ResponseGate())
        server.route("/slow.png", slow)
        let row = ThumbnailRowLoader(provider: pipeline)
        row.load(ThumbnailRequest(url: server.url("/slow.png"), size: .fit(32), priority: .visible))
        #expect(try await eventually { row.currentState.progress?.percent != nil })

        let load = InFlightLoad(of: row)
        row.prepareForReuse()
        await load.value  // the cancelled load has ended
        #expect(try await eventually { self.server.earlyCloseCount("/slow.png") == 1 })
        #expect(row.currentState.isIdle && pipeline.memoryStatistics.count == 0)
    }
}

extension ListCell {
    /// The cell's thumbnail loader, which a ``ThumbnailRowController`` puts there.
    var loader: ThumbnailRowLoader? { content(as: ThumbnailRowLoader.self) }
}
