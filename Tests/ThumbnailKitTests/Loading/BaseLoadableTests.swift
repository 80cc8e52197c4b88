import TestSupport
import Testing
import ThumbnailKit

/// What BaseLoadable gives a subclass: the states around its fetch, and
/// progress from inside the fetch that only the current load can show.
@MainActor @Suite(.timeLimit(.minutes(1))) struct BaseLoadableTests {
    /// Reports a step before and after waiting for `source`.
    final class SteppedLoader: BaseLoadable<String> {
        let source: ManualFetch<String>

        init(source: ManualFetch<String>) {
            self.source = source
            super.init()
        }

        override func fetch() async throws -> String {
            updateState(.loading(LoadingProgress(message: "connecting", percent: 10)))
            let value = try await source.run()
            updateState(.loading(LoadingProgress(message: "decoding", percent: 90)))
            return value
        }
    }

    @Test func progressFromFetchShowsBetweenLoadingAndTheValue() async throws {
        let source = ManualFetch<String>()
        let loader = SteppedLoader(source: source)
        let states = loader.recordStates(through: \.isSettled)

        let load = Task { await loader.load() }
        #expect(try await eventually { source.waitingCount == 1 })
        source.succeed("done")
        await load.value
        #expect(await states.value.map(\.summary)
                == ["idle", "loading", "loading(connecting, 10%)", "loading(decoding, 90%)", "loaded(done)"])
    }

    @Test func aFetchThatThrowsEndsInFailureWithItsError() async throws {
        let source = ManualFetch<String>()
        let loader = SteppedLoader(source: source)
        let states = loader.recordStates(through: \.isSettled)

        let load = Task { await loader.load() }
        #expect(try await eventually { source.waitingCount == 1 })
        source.fail(TestFailure("timed out"))
        await load.value
        let recorded = await states.value
        #expect(recorded.map(\.phase) == [.idle, .loading, .loading, .failure])
        #expect(recorded.map(\.summary) == ["idle", "loading", "loading(connecting, 10%)", "failure(timed out)"])
    }

    @Test func progressFromACancelledFetchDoesNotReachTheNextLoad() async throws {
        let source = ManualFetch<String>(ignoringCancellation: true)
        let loader = SteppedLoader(source: source)
        let cancelled = Task { await loader.load() }
        #expect(try await eventually { source.waitingCount == 1 })
        loader.cancel()
        let current = Task { await loader.load() }
        #expect(try await eventually { source.waitingCount == 2 })

        source.succeed("stale")  // the cancelled fetch goes on to report "decoding" and return
        await cancelled.value
        #expect(loader.currentState.summary == "loading(connecting, 10%)")

        source.succeed("fresh")
        await current.value
        #expect(loader.currentState.summary == "loaded(fresh)")
    }

    @Test func updateStateOutsideALoadIsIgnored() {
        let loader = SteppedLoader(source: ManualFetch())
        loader.updateState(.loaded("from nowhere"))
        #expect(loader.currentState.summary == "idle")
    }
}
