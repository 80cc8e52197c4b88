import TestSupport
import Testing
import ThumbnailKit

/// A row that owns its loading task, against a spy provider the test answers
/// by hand: states in order, failure and retry, reuse that cancels, the
/// ``Loadable`` rules, and no stale image or progress ever landing, whatever
/// order the provider's answers come in.
@Suite(.timeLimit(.minutes(1))) @MainActor struct ThumbnailRowLoaderTests {
    let provider = SpyThumbnailProvider()

    func makeRow(_ provider: SpyThumbnailProvider? = nil) -> ThumbnailRowLoader {
        ThumbnailRowLoader(provider: provider ?? self.provider)
    }

    func request(_ url: String) -> ThumbnailRequest {
        ThumbnailRequest(url: url, size: .fit(32), priority: .visible)
    }

    /// A 32 px thumbnail whose pixels say `number`.
    func image(_ number: Int) throws -> Thumbnail {
        try ThumbnailDecoder(size: .fit(32)).decode(NumberedImage.png(number), cancellation: nil)
    }

    func number(shownBy row: ThumbnailRowLoader) -> Int? {
        row.currentState.value.flatMap(NumberedImage.number(in:))
    }

    /// Waits until the spy has `url` waiting for an answer.
    func waitUntilRequested(_ url: String, by spy: SpyThumbnailProvider? = nil) async throws {
        let spy = spy ?? provider
        #expect(try await eventually { spy.waitingURLs.contains(url) }, "\(url) was requested")
    }

    @Test func showsLoadingWithProgressThenTheImage() async throws {
        let row = makeRow()
        let states = row.recordStates(through: \.isSettled)
        row.load(request("a"))
        #expect(row.currentState.isLoading, "the spinner shows at once")
        try await waitUntilRequested("a")
        for received in [10, 50, 100] {
            provider.sendProgress("a", .fetching(TransferProgress(receivedBytes: received, expectedBytes: 100)))
        }
        provider.sendProgress("a", .decoding)
        provider.complete("a", with: try image(7))
        await row.waitForLoadingToComplete()

        #expect(number(shownBy: row) == 7)
        #expect(await states.value.map(\.rowSummary) == [
            "idle", "loading", "loading(10%)", "loading(50%)", "loading(100%)", "loading(decoding, 100%)", "loaded(7)",
        ])
    }

    @Test func aFailureShowsTheErrorAndRetryLoadsAgain() async throws {
        let row = makeRow()
        row.load(request("flaky"))
        try await waitUntilRequested("flaky")
        provider.fail("flaky", with: DataLoadingError.httpStatus("flaky", status: 404, retryAfter: nil))
        await row.waitForLoadingToComplete()
        #expect(row.currentState.error as? DataLoadingError == .httpStatus("flaky", status: 404, retryAfter: nil))

        row.retry()
        #expect(row.currentState.isLoading)
        try await waitUntilRequested("flaky")
        provider.complete("flaky", with: try image(3))
        await row.waitForLoadingToComplete()
        #expect(number(shownBy: row) == 3 && provider.requestedURLs == ["flaky", "flaky"])
    }

    @Test func retryDoesNothingUnlessTheRowFailed() async throws {
        let row = makeRow()
        row.retry()
        #expect(row.currentState.isIdle)
        row.load(request("a"))
        try await waitUntilRequested("a")
        row.retry()  // while loading
        provider.complete("a", with: try image(1))
        await row.waitForLoadingToComplete()
        row.retry()  // once loaded
        #expect(row.currentState.phase == .loaded && provider.requestedURLs == ["a"])
    }

    @Test func theProvidersRetriesShowAsProgressMessages() async throws {
        let row = makeRow()
        let states = row.recordStates(through: \.isSettled)
        row.load(request("busy"))
        try await waitUntilRequested("busy")
        provider.sendProgress("busy", .retrying(attempt: 2, of: 3, after: .milliseconds(500), reason: "HTTP 503"))
        provider.complete("busy", with: try image(5))
        #expect(await states.value.map(\.rowSummary).contains("loading(retrying in 0.5 s (attempt 2 of 3): HTTP 503)"))
    }

    /// What takes a row away from its load before the load has finished.
    enum Interruption: String, CaseIterable, Sendable {
        /// A newer load of another request.
        case newLoad
        /// The row scrolled away.
        case reuse
    }

    /// Takes `row` away from its load: a newer load of "newer" (requested by now), or reuse.
    func interrupt(_ row: ThumbnailRowLoader, with interruption: Interruption,
                   provider: SpyThumbnailProvider) async throws {
        switch interruption {
        case .newLoad:
            row.load(request("newer"))
            try await waitUntilRequested("newer", by: provider)
        case .reuse:
            row.prepareForReuse()
        }
    }

    /// In which order the provider answers the earlier (stale) and the newer request.
    enum Release: String, CaseIterable, Sendable {
        case staleFirst, newerFirst
    }

    /// A stale completion arrives on purpose: the spy keeps a cancelled
    /// request waiting, and the test answers it with an image, before or
    /// after the newer request's answer. It must never show.
    @Test(arguments: Interruption.allCases, Release.allCases)
    func aStaleCompletionNeverLands(_ interruption: Interruption, _ release: Release) async throws {
        let provider = SpyThumbnailProvider(ignoringCancellation: true)
        let row = makeRow(provider)
        let states = row.recordStates(through: { _ in false })
        row.load(request("earlier"))
        try await waitUntilRequested("earlier", by: provider)
        let earlierLoad = InFlightLoad(of: row)

        try await interrupt(row, with: interruption, provider: provider)
        #expect(provider.cancelledURLs == ["earlier"], "the interruption cancelled the earlier request")

        if release == .newerFirst, interruption == .newLoad { provider.complete("newer", with: try image(2)) }
        provider.complete("earlier", with: try image(1))
        await earlierLoad.value  // the stale completion has been handled
        if release == .staleFirst, interruption == .newLoad {
            #expect(row.currentState.isLoading, "the stale image did not end the newer load")
            provider.complete("newer", with: try image(2))
        }
        await row.waitForLoadingToComplete()

        switch interruption {
        case .newLoad: #expect(number(shownBy: row) == 2 && row.request?.url == "newer", "\(row.currentState)")
        case .reuse: #expect(row.currentState.isIdle && row.request == nil, "\(row.currentState)")
        }
        await Task.yield()
        states.cancel()
        #expect(!(await states.value).contains { $0.value.flatMap(NumberedImage.number(in:)) == 1 }, "image 1 never showed")
    }

    /// Progress of the earlier request, sent after the interruption, and its
    /// failure: neither shows.
    @Test(arguments: Interruption.allCases)
    func aStaleLoadsProgressAndFailureNeverShow(_ interruption: Interruption) async throws {
        let provider = SpyThumbnailProvider(ignoringCancellation: true)
        let row = makeRow(provider)
        row.load(request("earlier"))
        try await waitUntilRequested("earlier", by: provider)
        let earlierLoad = InFlightLoad(of: row)
        try await interrupt(row, with: interruption, provider: provider)
        let before = row.currentState.rowSummary

        provider.sendProgress("earlier", .fetching(TransferProgress(receivedBytes: 42, expectedBytes: 100)))
        provider.fail("earlier", with: DataLoadingError.network("earlier", reason: "reset"))
        await earlierLoad.value  // its progress and its failure have been handled
        #expect(row.currentState.rowSummary == before, "still \(before), not \(row.currentState.rowSummary)")
    }

    @Test func reuseCancelsTheRequestAndForgetsIt() async throws {
        let row = makeRow()
        row.load(request("a"))
        try await waitUntilRequested("a")
        let load = InFlightLoad(of: row)
        row.prepareForReuse()
        await load.value
        #expect(provider.cancelledURLs == ["a"] && provider.waitingURLs.isEmpty)
        #expect(row.currentState.isIdle && row.request == nil)
    }

    @Test func loadingTheSameRequestAgainNeitherFlickersNorRefetches() async throws {
        let row = makeRow()
        let states = row.recordStates(through: { _ in false })
        row.load(request("a"))
        row.load(request("a"))  // while loading
        try await waitUntilRequested("a")
        provider.complete("a", with: try image(4))
        await row.waitForLoadingToComplete()
        row.load(request("a"))  // while loaded
        await row.waitForLoadingToComplete()
        await Task.yield()
        states.cancel()
        #expect(await states.value.map(\.rowSummary) == ["idle", "loading", "loaded(4)"])
        #expect(provider.requestedURLs == ["a"])
    }

    @Test func aThumbnailAtHandShowsWithoutALoadingState() throws {
        provider.cache(try image(6), for: request("a"))
        let row = makeRow()
        row.load(request("a"))
        #expect(number(shownBy: row) == 6, "shown synchronously")
        #expect(provider.requestedURLs.isEmpty)
    }

    @Test func aLateObserverSeesTheLoadedStateFirst() async throws {
        let row = makeRow()
        row.load(request("a"))
        try await waitUntilRequested("a")
        provider.complete("a", with: try image(8))
        await row.waitForLoadingToComplete()
        var states = row.state.makeAsyncIterator()
        #expect(await states.next()?.phase == .loaded)
    }

    /// The ``Loadable`` triggers: cancel shows a cancelled load and keeps
    /// the request; load() then loads it again; reset returns to idle.
    @Test func itIsALoadableOfItsRequest() async throws {
        let row = makeRow()
        await row.load()  // no request: nothing to load
        #expect(row.currentState.isIdle && provider.requestedURLs.isEmpty)

        row.load(request("a"))
        try await waitUntilRequested("a")
        row.cancel()
        #expect(row.isCanceled && row.currentState.isCanceledLoad && row.request?.url == "a")

        let load = Task { await row.load() }
        try await waitUntilRequested("a")
        #expect(!row.isCanceled && row.currentState.isLoading)
        provider.complete("a", with: try image(9))
        await load.value
        #expect(number(shownBy: row) == 9 && provider.requestedURLs == ["a", "a"])

        await row.load()  // loaded: the value is kept
        #expect(provider.requestedURLs.count == 2)
        row.reset()
        #expect(row.currentState.isIdle && row.request?.url == "a")
    }
}

/// The load a row has in flight now, held even after the row has moved on:
/// `value` returns once that load has finished and its states were handled.
@MainActor struct InFlightLoad {
    private let task: Task<Void, Never>

    init(of row: ThumbnailRowLoader) {
        task = Task.immediate { @MainActor in await row.waitForLoadingToComplete() }
    }

    var value: Void {
        get async { await task.value }
    }
}

extension LoadingState<Thumbnail> {
    /// ``summary`` with a thumbnail shown by its number: "loaded(7)".
    var rowSummary: String {
        guard let thumbnail = value else { return summary }
        return "loaded(\(NumberedImage.number(in: thumbnail).map(String.init) ?? "?"))"
    }
}
