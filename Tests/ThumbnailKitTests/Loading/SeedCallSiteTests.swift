import Foundation
import Synchronization
import Testing
import ThumbnailKit

/// The call sites of the LoadingView seed (`seeds/002_*.txt` in the shared folder beside the project),
/// as written there, wherever they are Swift without SwiftUI or UIKit: each
/// test's first lines are the seed's, and the rest checks they do what the
/// seed says. (`data` in the seed's CustomLoader is given a home as a property.)
@Suite(.timeLimit(.minutes(1))) struct SeedCallSiteTests {
    @MainActor @Test func blockLoadableOfAString() async throws {
        let loader = BlockLoadable<String> {
            try await Task.sleep(nanoseconds: 1_000_000_000)
            return "Result"
        }
        let load = Task { await loader.load() }
        #expect(try await waitUntil { loader.currentState.isLoading })
        loader.cancel()
        await load.value
        #expect(loader.isCanceled && loader.currentState.progress?.isCanceled == true)
    }

    /// The seed awaits the initializer: from outside the main actor it is an async call.
    @Test func debouncingLoadableWithADebounceIntervalInSeconds() async {
        let baseLoader = await BlockLoadable<String> { "Result" }
        let debounced = await DebouncingLoadable(
            wrapping: baseLoader,
            debounceInterval: 0.5,
            executeFirstImmediately: false
        )
        #expect(await debounced.interval == .milliseconds(500))
        await debounced.load()
        #expect(await debounced.currentState.value == "Result")
    }

    @MainActor @Test func retryableLoaderWithMaxAttempts() async {
        let loader = failingOnce()
        let retrying = RetryableLoader(
            base: loader,
            maxAttempts: 3
        )
        await retrying.load()
        #expect(retrying.currentState.value == 2 && retrying.policy.maximumAttempts == 3)
    }

    @MainActor @Test func concurrencyLimitingLoadableWithAConcurrencyLimit() async {
        let batchLoader = BlockLoadable<[Int]> { [1, 2, 3] }
        let limitedLoader = ConcurrencyLimitingLoadable(
            wrapping: batchLoader,
            concurrencyLimit: 3  // Only 3 downloads at a time
        )
        #expect(limitedLoader.limiter.limit == 3)
        await limitedLoader.load()
        #expect(limitedLoader.currentState.value == [1, 2, 3])
    }

    @MainActor class CustomLoader: BaseLoadable<Data> {
        let data = Data("payload".utf8)

        override func fetch() async throws -> Data {
            updateState(.loading(
                LoadingProgress(message: "Step 1", percent: 25)
            ))
            // Work...
            return data
        }
    }

    @MainActor @Test func aCustomLoaderReportsProgress() async {
        let loader = CustomLoader()
        let states = Task { @MainActor in
            var seen: [LoadingState<Data>] = []
            for await state in loader.state {
                seen.append(state)
                if state.value != nil { break }
            }
            return seen
        }
        await loader.load()
        let progress = await states.value.compactMap(\.progress)
        #expect(progress == [LoadingProgress(message: "Step 1", percent: 25)])
        #expect(loader.currentState.value == Data("payload".utf8))
    }

    /// The seed's error view's retry button and manual "Load" button.
    @MainActor @Test func retryByResetThenLoadAndManualLoading() async throws {
        let loader = failingOnce()
        Task {
            await loader.load()
        }
        #expect(try await waitUntil { loader.currentState.phase == .failure })
        Task {
            loader.reset()
            await loader.load()
        }
        #expect(try await waitUntil { loader.currentState.value == 2 })
    }

    /// A loader that fails its first load and loads the number of its call after.
    @MainActor private func failingOnce() -> BlockLoadable<Int> {
        let calls = Mutex(0)
        return BlockLoadable<Int> {
            let call = calls.withLock { calls in
                calls += 1
                return calls
            }
            guard call > 1 else { throw SeedFailure() }
            return call
        }
    }

    /// Polls `condition` on the main actor until it holds (a minute at most).
    @MainActor private func waitUntil(_ condition: @MainActor () -> Bool) async throws -> Bool {
        for _ in 0..<60_000 where !condition() { try await Task.sleep(for: .milliseconds(1)) }
        return condition()
    }
}

private struct SeedFailure: Error {}
