import Synchronization
import TestSupport
import Testing
import ThumbnailHTTP
import ThumbnailKit

/// A row that owns its loading task: states in order, failure and retry, reuse
/// that cancels, and no stale image ever landing.
@Suite @MainActor final class ThumbnailRowLoaderTests {
    let server: TestHTTPServer
    let pipeline: ThumbnailPipeline

    init() throws {
        server = try TestHTTPServer()
        pipeline = ThumbnailPipeline(configuration: .init(
            dataLoader: try HTTPDataLoader(),
            retryPolicy: RetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(20), jitter: 0)))
    }

    deinit { server.stop() }

    func makeRow() -> ThumbnailRowLoader { ThumbnailRowLoader(pipeline: pipeline) }

    func request(_ path: String) -> ThumbnailRequest {
        ThumbnailRequest(url: server.url(path), size: .fit(32), priority: .visible)
    }

    /// Serves numbered image `number` at `path`, held back until `gate` opens when one is given.
    func serve(_ number: Int, at path: String, gate: ResponseGate? = nil) throws {
        var behavior = TestHTTPServer.Behavior(body: try NumberedImage.png(number))
        behavior.gate = gate
        server.route(path, behavior)
    }

    /// Collects a row's states from now on, until `stop()`.
    @MainActor final class StateRecorder {
        private(set) var states: [LoadingState<Thumbnail>] = []
        private var task: Task<Void, Never>?

        init(_ row: ThumbnailRowLoader) {
            let stream = row.state
            task = Task { @MainActor [weak self] in
                for await state in stream { self?.states.append(state) }
            }
        }

        var phases: [LoadingPhase] { states.map(\.phase) }

        func stop() { task?.cancel() }
    }

    @Test func showsLoadingWhileLoadingThenTheImage() async throws {
        let gate = ResponseGate()
        try serve(7, at: "/7.png", gate: gate)
        let row = makeRow()
        let recorder = StateRecorder(row)

        row.load(request("/7.png"))
        #expect(row.currentState.isLoading, "the spinner shows at once")
        #expect(try await eventually { self.server.requestCount("/7.png") == 1 })
        #expect(row.currentState.isLoading)
        gate.open()
        await row.waitForLoadingToComplete()

        let thumbnail = try #require(row.currentState.value)
        #expect(NumberedImage.number(in: thumbnail) == 7 && thumbnail.width == 32)
        #expect(try await eventually { recorder.states.last?.phase == .loaded })
        let phases = recorder.phases
        #expect(phases.first == .idle && phases.last == .loaded)
        #expect(phases.dropFirst().dropLast().allSatisfy { $0 == .loading })
        let percents = recorder.states.compactMap { $0.progress?.percent }
        #expect(percents == percents.sorted() && percents.last == 100, "progress only moves forward, to 100")
        recorder.stop()
    }

    @Test func aFailureShowsTheErrorAndRetryLoadsAgain() async throws {
        server.route("/flaky.png", .init(status: 404), .init(body: try NumberedImage.png(3)))
        let row = makeRow()
        row.load(request("/flaky.png"))
        await row.waitForLoadingToComplete()
        let error = try #require(row.currentState.error as? DataLoadingError)
        #expect(error == .httpStatus(server.url("/flaky.png"), status: 404, retryAfter: nil))

        row.retry()
        #expect(row.currentState.isLoading)
        await row.waitForLoadingToComplete()
        #expect(row.currentState.value.flatMap(NumberedImage.number(in:)) == 3)
        #expect(server.requestCount("/flaky.png") == 2)
    }

    @Test func retryDoesNothingUnlessTheRowFailed() async throws {
        try serve(1, at: "/1.png")
        let row = makeRow()
        row.retry()
        #expect(row.currentState.isIdle)
        row.load(request("/1.png"))
        await row.waitForLoadingToComplete()
        row.retry()
        #expect(row.currentState.phase == .loaded && server.requestCount("/1.png") == 1)
    }

    @Test func thePipelinesAutomaticRetriesShowAsProgressMessages() async throws {
        server.route("/busy.png", .init(status: 503), .init(body: try NumberedImage.png(5)))
        let row = makeRow()
        let recorder = StateRecorder(row)
        row.load(request("/busy.png"))
        await row.waitForLoadingToComplete()
        #expect(try await eventually { recorder.states.last?.phase == .loaded })
        let messages = recorder.states.compactMap { $0.progress?.message }
        #expect(messages.contains { $0.hasPrefix("retrying in ") && $0.contains("attempt 2 of 3") && $0.contains("HTTP 503") })
        #expect(server.requestCount("/busy.png") == 2)
        recorder.stop()
    }

    @Test func anEarlierRequestAnsweredLateNeverLandsAfterANewLoad() async throws {
        let late = ResponseGate()
        try serve(1, at: "/late.png", gate: late)
        try serve(2, at: "/early.png")
        let row = makeRow()
        // Someone else also wants the late image, so its download and decode
        // finish even though the row gives up on it: the completion happens.
        let otherWaiter = Task { try await pipeline.thumbnail(for: request("/late.png")) }

        row.load(request("/late.png"))
        #expect(try await eventually { self.server.requestCount("/late.png") == 1 })
        row.load(request("/early.png"))
        await row.waitForLoadingToComplete()
        #expect(row.currentState.value.flatMap(NumberedImage.number(in:)) == 2)

        late.open()
        #expect(try await NumberedImage.number(in: otherWaiter.value) == 1, "the late image did complete")
        await Task.yield()
        #expect(row.currentState.value.flatMap(NumberedImage.number(in:)) == 2)
        #expect(row.request?.url == server.url("/early.png"))
    }

    @Test func anEarlierRequestAnsweredLateNeverLandsAfterReuse() async throws {
        let late = ResponseGate()
        try serve(1, at: "/late.png", gate: late)
        let row = makeRow()
        let otherWaiter = Task { try await pipeline.thumbnail(for: request("/late.png")) }
        row.load(request("/late.png"))
        #expect(try await eventually { self.server.requestCount("/late.png") == 1 })

        row.prepareForReuse()
        #expect(row.currentState.isIdle && row.request == nil)
        late.open()
        _ = try await otherWaiter.value
        await row.waitForLoadingToComplete()
        await Task.yield()
        #expect(row.currentState.isIdle, "the completed image did not land in the reused row")
    }

    @Test func reuseCancelsTheTransfer() async throws {
        var slow = TestHTTPServer.Behavior(body: try NumberedImage.png(9))
        slow.trickle = (chunk: max(1, slow.body.count / 50), pause: .milliseconds(40))  // about 2 s
        server.route("/slow.png", slow)
        let row = makeRow()
        row.load(request("/slow.png"))
        #expect(try await eventually { row.currentState.progress?.percent != nil })

        row.prepareForReuse()
        await row.waitForLoadingToComplete()
        #expect(try await eventually { self.server.earlyCloseCount("/slow.png") == 1 })
        #expect(row.currentState.isIdle && pipeline.memoryCache.statistics.count == 0)
    }

    @Test func loadingTheSameRequestAgainNeitherFlickersNorRefetches() async throws {
        try serve(4, at: "/4.png")
        let row = makeRow()
        let recorder = StateRecorder(row)
        row.load(request("/4.png"))
        row.load(request("/4.png"))  // while loading
        await row.waitForLoadingToComplete()
        #expect(try await eventually { recorder.states.last?.phase == .loaded })
        let statesWhenLoaded = recorder.states.count

        row.load(request("/4.png"))  // while loaded
        await row.waitForLoadingToComplete()
        await Task.yield()
        #expect(recorder.states.count == statesWhenLoaded, "no state went by")
        #expect(row.currentState.phase == .loaded && server.requestCount("/4.png") == 1)
        #expect(recorder.phases.filter { $0 == .loaded }.count == 1)
        recorder.stop()
    }

    @Test func aThumbnailInTheMemoryCacheShowsWithoutALoadingState() async throws {
        try serve(6, at: "/6.png")
        _ = try await pipeline.thumbnail(for: request("/6.png"))
        let row = makeRow()
        row.load(request("/6.png"))
        #expect(row.currentState.value.flatMap(NumberedImage.number(in:)) == 6, "shown synchronously")
    }

    @Test func aLateObserverSeesTheLoadedStateFirst() async throws {
        try serve(8, at: "/8.png")
        let row = makeRow()
        row.load(request("/8.png"))
        await row.waitForLoadingToComplete()
        var states = row.state.makeAsyncIterator()
        #expect(await states.next()?.phase == .loaded)
    }
}
