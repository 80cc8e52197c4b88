#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
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

    /// What takes a row away from its load before the load has finished.
    enum Interruption: String, CaseIterable, Sendable {
        /// Another request: its image is in the memory cache, so it shows at once and for good.
        case newLoad
        /// The row scrolled away.
        case reuse
    }

    /// Interrupts `row` as `interruption` says; `shown` is the cached request a new load shows.
    func interrupt(_ row: ThumbnailRowLoader, with interruption: Interruption, showing shown: ThumbnailRequest) {
        switch interruption {
        case .newLoad: row.load(shown)
        case .reuse: row.prepareForReuse()
        }
    }

    /// What the row must show after `interruption`, whatever its earlier load does later.
    func showsOnlyWhatFollowed(_ interruption: Interruption, in row: ThumbnailRowLoader, number: Int) -> Bool {
        switch interruption {
        case .newLoad: row.currentState.phase == .loaded && row.currentState.value.flatMap(NumberedImage.number(in:)) == number
        case .reuse: row.currentState.isIdle && row.request == nil
        }
    }

    /// A number other threads add to.
    final class Tally: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func add() { count.withLock { $0 += 1 } }
    }

    /// A wait for the load a row has in flight now, started synchronously, so
    /// it holds that load even after the row has moved on to another.
    struct InFlightLoad {
        let task: Task<Void, Never>
        /// 1 once the load has finished.
        let finished: Tally

        @MainActor init(of row: ThumbnailRowLoader) {
            let finished = Tally()
            task = Task.immediate { @MainActor in
                await row.waitForLoadingToComplete()
                finished.add()
            }
            self.finished = finished
        }
    }

    @Test(arguments: Interruption.allCases)
    func anEarlierLoadsImageNeverLandsAfterwards(_ interruption: Interruption) async throws {
        try serve(2, at: "/shown.png")
        _ = try await pipeline.thumbnail(for: request("/shown.png"))
        let row = makeRow()
        let recorder = StateRecorder(row)

        // The earlier load's task is created but has not run: the main actor is
        // this test's until its next suspension.
        row.load(request("/earlier.png"))
        // By the time it runs, its image is in the memory cache, which answers
        // without looking at cancellation: the earlier load completes with an image.
        let earlierImage = try ThumbnailDecoder(size: .fit(32)).decode(NumberedImage.png(1), cancellation: nil)
        pipeline.memoryCache.insert(earlierImage, forKey: request("/earlier.png").key, cost: earlierImage.byteCount)
        let earlierLoad = InFlightLoad(of: row)
        interrupt(row, with: interruption, showing: request("/shown.png"))
        #expect(earlierLoad.finished.value == 0, "the earlier load is still in flight")

        await earlierLoad.task.value
        #expect(pipeline.statistics.memoryHits == 1, "the earlier load got its image")
        #expect(showsOnlyWhatFollowed(interruption, in: row, number: 2), "\(row.currentState)")
        await Task.yield()
        #expect(!recorder.states.contains { $0.value.flatMap(NumberedImage.number(in:)) == 1 }, "image 1 never showed")
        #expect(server.requestCount("/earlier.png") == 0)
        recorder.stop()
    }

    @Test(arguments: Interruption.allCases)
    func anEarlierLoadsProgressNeverShowsAfterwards(_ interruption: Interruption) async throws {
        try serve(2, at: "/shown.png")
        _ = try await pipeline.thumbnail(for: request("/shown.png"))
        var slow = TestHTTPServer.Behavior(body: try NumberedImage.png(1))
        slow.trickle = (chunk: max(1, slow.body.count / 50), pause: .milliseconds(40))  // about 2 s
        server.route("/slow.png", slow)
        let row = makeRow()

        // The row listens to the download's progress first, then a second caller
        // for the same image does: each event reaches the row before the second caller.
        row.load(request("/slow.png"))
        #expect(try await eventually { self.pipeline.waiterCount(for: self.request("/slow.png")) == 1 })
        let eventsSeen = Tally()
        let otherCaller = Task { [pipeline] in
            try await pipeline.thumbnail(for: request("/slow.png")) { _ in eventsSeen.add() }
        }
        #expect(try await eventually { self.pipeline.waiterCount(for: self.request("/slow.png")) == 2 })
        let earlierLoad = InFlightLoad(of: row)

        // Block the main actor until two more events have gone by: the second
        // began after the block, so the row's copy of it waits, undelivered, for
        // the main actor, and is delivered only after the interruption.
        let before = eventsSeen.value
        let deadline = ContinuousClock.now + .seconds(20)
        while eventsSeen.value < before + 2 && ContinuousClock.now < deadline { usleep(1_000) }
        #expect(eventsSeen.value >= before + 2, "progress events arrived while the main actor was blocked")
        interrupt(row, with: interruption, showing: request("/shown.png"))
        #expect(earlierLoad.finished.value == 0, "the earlier load is still in flight")

        await earlierLoad.task.value  // its queued progress has been handled
        #expect(showsOnlyWhatFollowed(interruption, in: row, number: 2), "\(row.currentState)")
        otherCaller.cancel()
    }

    @Test func reuseCancelsTheTransfer() async throws {
        var slow = TestHTTPServer.Behavior(body: try NumberedImage.png(9))
        slow.trickle = (chunk: max(1, slow.body.count / 50), pause: .milliseconds(40))  // about 2 s
        server.route("/slow.png", slow)
        let row = makeRow()
        row.load(request("/slow.png"))
        #expect(try await eventually { row.currentState.progress?.percent != nil })

        let load = InFlightLoad(of: row)
        row.prepareForReuse()
        await load.task.value  // the cancelled load has ended
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
