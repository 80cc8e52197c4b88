import Testing
import ThumbnailKit

/// BlockLoadable shows `.loading(nil)` while its closure runs, then the outcome.
@MainActor @Suite(.timeLimit(.minutes(1))) struct BlockLoadableTests {
    @Test func aSuccessfulLoadShowsIdleLoadingLoaded() async {
        let loader = BlockLoadable { "thumbnail" }
        let states = loader.recordStates(through: \.isSettled)

        await loader.load()
        let recorded = await states.value
        #expect(recorded.map(\.phase) == [.idle, .loading, .loaded])
        #expect(recorded.map(\.summary) == ["idle", "loading", "loaded(thumbnail)"])
    }

    @Test func aFailedLoadShowsIdleLoadingFailureWithTheError() async {
        let loader = BlockLoadable<String> { throw TestFailure("not an image") }
        let states = loader.recordStates(through: \.isSettled)

        await loader.load()
        let recorded = await states.value
        #expect(recorded.map(\.phase) == [.idle, .loading, .failure])
        #expect(recorded.map(\.summary) == ["idle", "loading", "failure(not an image)"])
    }

    @Test func loadAfterAFailureRunsTheClosureAgain() async {
        let fetch = ScriptedFetch<Int>([.failure(TestFailure("offline")), .success(3)])
        let loader = BlockLoadable { try fetch.run() }

        await loader.load()
        #expect(loader.currentState.summary == "failure(offline)")
        await loader.load()
        #expect(loader.currentState.summary == "loaded(3)")
        #expect(fetch.callCount == 2)
    }
}
