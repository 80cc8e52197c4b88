import TestSupport
import Testing
import ThumbnailKit

/// The rules every Loadable follows (see the protocol's documentation),
/// checked against each implementation built around the same fetch.
@MainActor @Suite(.timeLimit(.minutes(1))) struct LoadableTests {
    /// A loader under test and how to count its observers (not part of the protocol).
    struct Subject {
        let loader: any Loadable<Int>
        let observerCount: @MainActor () -> Int
    }

    enum Implementation: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case block, debouncing, retryable, concurrencyLimiting

        var testDescription: String { rawValue }

        @MainActor func make(_ fetch: @escaping @Sendable () async throws -> Int) -> Subject {
            let block = BlockLoadable(fetch)
            switch self {
            case .block:
                return Subject(loader: block, observerCount: { block.observerCount })
            case .debouncing:
                let loader = DebouncingLoadable(wrapping: block, interval: .milliseconds(10))
                return Subject(loader: loader, observerCount: { block.observerCount })
            case .retryable:
                let loader = RetryableLoader(base: block, policy: RetryPolicy(maximumAttempts: 3,
                                                                              initialDelay: .milliseconds(10)))
                return Subject(loader: loader, observerCount: { loader.observerCount })
            case .concurrencyLimiting:
                let loader = ConcurrencyLimitingLoadable(wrapping: block, limiter: PriorityLimiter(limit: 1))
                return Subject(loader: loader, observerCount: { loader.observerCount })
            }
        }
    }

    /// Starts a load of `loader` and returns once `fetch` is running.
    func startLoad(_ loader: any Loadable<Int>, waitingIn fetch: ManualFetch<Int>) async throws -> Task<Void, Never> {
        let load = Task { await loader.load() }
        #expect(try await eventually { fetch.waitingCount == 1 })
        return load
    }

    @Test(arguments: Implementation.allCases)
    func loadWhileLoadingReturnsAtOnceAndStartsNothing(_ implementation: Implementation) async throws {
        let fetch = ManualFetch<Int>()
        let loader = implementation.make { try await fetch.run() }.loader
        let first = try await startLoad(loader, waitingIn: fetch)

        let log = EventLog()
        _ = Task {
            await loader.load()
            log.append("second call returned")
        }
        try #require(await eventually { log.events == ["second call returned"] },
                     "the second call returns while the first load still runs")
        #expect(loader.currentState.isLoading)
        #expect(fetch.callCount == 1)

        fetch.succeed(7)
        await first.value
        #expect(loader.currentState.summary == "loaded(7)")
        #expect(fetch.callCount == 1)
    }

    @Test(arguments: Implementation.allCases)
    func loadWhenLoadedKeepsTheValueAndResetThenLoadLoadsAgain(_ implementation: Implementation) async {
        let fetch = ScriptedFetch<Int>([.success(1), .success(2)])
        let loader = implementation.make { try fetch.run() }.loader

        await loader.load()
        await loader.load()
        #expect(loader.currentState.summary == "loaded(1)")
        #expect(fetch.callCount == 1)

        loader.reset()
        await loader.load()
        #expect(loader.currentState.summary == "loaded(2)")
        #expect(fetch.callCount == 2)
    }

    @Test(arguments: Implementation.allCases)
    func resetReturnsToIdleAndTheCancelledWorkDoesNotLand(_ implementation: Implementation) async throws {
        let fetch = ManualFetch<Int>()
        let loader = implementation.make { try await fetch.run() }.loader
        let load = try await startLoad(loader, waitingIn: fetch)

        loader.reset()
        #expect(loader.currentState.summary == "idle")
        #expect(!loader.isCanceled)
        await load.value  // the fetch has thrown CancellationError by now
        #expect(fetch.waitingCount == 0)
        #expect(loader.currentState.summary == "idle", "a cancelled fetch is not a failure")
    }

    @Test(arguments: Implementation.allCases)
    func cancelShowsCanceledAndALateResultDoesNotLand(_ implementation: Implementation) async throws {
        let fetch = ManualFetch<Int>(ignoringCancellation: true)
        let loader = implementation.make { try await fetch.run() }.loader
        let load = try await startLoad(loader, waitingIn: fetch)

        loader.cancel()
        #expect(loader.currentState.summary == "loading(canceled)")
        #expect(loader.isCanceled)

        fetch.succeed(7)
        try #require(await finishes(load))
        #expect(loader.currentState.summary == "loading(canceled)")
        #expect(loader.isCanceled)
    }

    @Test(arguments: Implementation.allCases)
    func aFetchThatStopsWithCancellationErrorAfterCancelIsNotAFailure(_ implementation: Implementation) async throws {
        let fetch = ManualFetch<Int>()
        let loader = implementation.make { try await fetch.run() }.loader
        let load = try await startLoad(loader, waitingIn: fetch)

        loader.cancel()
        try #require(await finishes(load))
        #expect(fetch.waitingCount == 0, "the fetch saw the cancellation")
        #expect(loader.currentState.summary == "loading(canceled)")
    }

    @Test(arguments: Implementation.allCases)
    func loadAfterCancelStartsANewLoad(_ implementation: Implementation) async throws {
        let fetch = ManualFetch<Int>()
        let loader = implementation.make { try await fetch.run() }.loader
        let cancelled = try await startLoad(loader, waitingIn: fetch)
        loader.cancel()
        try #require(await finishes(cancelled))

        let states = loader.recordStates(through: \.isSettled)
        let again = try await startLoad(loader, waitingIn: fetch)
        #expect(!loader.isCanceled)
        fetch.succeed(8)
        await again.value
        let recorded = await states.value.map(\.summary)
        #expect(recorded.first == "loading(canceled)")
        #expect(!recorded.dropFirst().contains("loading(canceled)"), "the old cancellation does not come back")
        #expect(recorded.last == "loaded(8)")
        #expect(fetch.callCount == 2)
    }

    @Test(arguments: Implementation.allCases)
    func aLateObserverGetsTheCurrentStateFirst(_ implementation: Implementation) async {
        let fetch = ScriptedFetch<Int>([.success(5)])
        let loader = implementation.make { try fetch.run() }.loader
        await loader.load()

        let late = await loader.recordStates(through: { _ in true }).value
        #expect(late.map(\.summary) == ["loaded(5)"])
    }

    @Test(arguments: Implementation.allCases)
    func twoObserversSeeTheSameStatesInTheSameOrder(_ implementation: Implementation) async {
        let fetch = ScriptedFetch<Int>([.success(5)])
        let loader = implementation.make { try fetch.run() }.loader
        let first = loader.recordStates(through: \.isSettled)
        let second = loader.recordStates(through: \.isSettled)

        await loader.load()
        let firstStates = await first.value.map(\.summary)
        let secondStates = await second.value.map(\.summary)
        #expect(firstStates.first == "idle")
        #expect(firstStates.last == "loaded(5)")
        #expect(firstStates == secondStates)
    }

    @Test(arguments: Implementation.allCases)
    func anObserverThatStopsIsRemoved(_ implementation: Implementation) async throws {
        let subject = implementation.make { 1 }
        let observer = Task { for await _ in subject.loader.state {} }
        #expect(try await eventually { subject.observerCount() == 1 })

        observer.cancel()
        #expect(try await eventually { subject.observerCount() == 0 })
    }
}
