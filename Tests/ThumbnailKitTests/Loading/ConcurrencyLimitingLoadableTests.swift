import TestSupport
import Testing
@testable import ThumbnailKit

/// ConcurrencyLimitingLoadable loads its base only inside a slot of a shared
/// PriorityLimiter, and shows "waiting" until it has one.
@MainActor @Suite(.timeLimit(.minutes(1))) struct ConcurrencyLimitingLoadableTests {
    @Test func aLoadShowsWaitingThenLoadingThenTheValue() async {
        let loader = ConcurrencyLimitingLoadable(wrapping: BlockLoadable { 1 }, limiter: PriorityLimiter(limit: 1))
        let states = loader.recordStates(through: \.isSettled)

        await loader.load()
        #expect(await states.value.map(\.summary) == ["idle", "loading(waiting)", "loading", "loaded(1)"])
    }

    @Test func aFailedLoadShowsWaitingThenLoadingThenTheError() async {
        let loader = ConcurrencyLimitingLoadable(wrapping: BlockLoadable<Int> { throw TestFailure("404") },
                                                 limiter: PriorityLimiter(limit: 1))
        let states = loader.recordStates(through: \.isSettled)

        await loader.load()
        #expect(await states.value.map(\.summary) == ["idle", "loading(waiting)", "loading", "failure(404)"])
    }

    @Test func neverMoreThanTheLimitFetchAtOnceAndTheyStartInArrivalOrder() async throws {
        let limiter = PriorityLimiter(limit: 2)
        let fetch = ManualFetch<Int>()
        let loaders = (0..<5).map { number in
            ConcurrencyLimitingLoadable(wrapping: BlockLoadable { try await fetch.run("\(number)") }, limiter: limiter)
        }

        var loads: [Task<Void, Never>] = []
        for (index, loader) in loaders.enumerated() {
            loads.append(Task { await loader.load() })
            // Each loader is running or queued before the next one asks.
            #expect(try await eventually { fetch.callCount + limiter.waitingCount == index + 1 })
        }
        #expect(fetch.started == ["0", "1"])
        #expect(loaders[2].currentState.summary == "loading(waiting)")

        for finished in 0..<5 {
            fetch.succeed(finished)
            #expect(try await eventually { fetch.callCount == min(5, finished + 3) })
        }
        for load in loads { await load.value }
        #expect(fetch.started == ["0", "1", "2", "3", "4"])
        #expect(fetch.peakWaiting == 2)
        #expect(loaders.map(\.currentState.summary) == (0..<5).map { "loaded(\($0))" })
    }

    @Test func aLoaderCancelledWhileQueuedLeavesTheQueueWithoutRunning() async throws {
        let limiter = PriorityLimiter(limit: 1)
        let fetch = ManualFetch<Int>()
        let holder = ConcurrencyLimitingLoadable(wrapping: BlockLoadable { try await fetch.run("holder") }, limiter: limiter)
        let cancelled = ConcurrencyLimitingLoadable(wrapping: BlockLoadable { try await fetch.run("cancelled") }, limiter: limiter)
        let later = ConcurrencyLimitingLoadable(wrapping: BlockLoadable { try await fetch.run("later") }, limiter: limiter)

        let holding = Task { await holder.load() }
        #expect(try await eventually { fetch.waitingCount == 1 })
        let cancelledLoad = Task { await cancelled.load() }
        #expect(try await eventually { limiter.waitingCount == 1 })
        let laterLoad = Task { await later.load() }
        #expect(try await eventually { limiter.waitingCount == 2 })

        cancelled.cancel()
        #expect(cancelled.currentState.summary == "loading(canceled)")
        try #require(await finishes(cancelledLoad))
        #expect(limiter.waitingCount == 1, "it left the queue at once, before any slot was free")

        fetch.succeed(1)
        #expect(try await eventually { fetch.waitingCount == 1 })
        fetch.succeed(3)
        await holding.value
        await laterLoad.value
        #expect(fetch.started == ["holder", "later"])
        #expect(cancelled.currentState.summary == "loading(canceled)")
        #expect(later.currentState.summary == "loaded(3)")
    }

    @Test func cancelWhileTheBaseRunsCancelsTheBaseAndFreesTheSlot() async throws {
        let limiter = PriorityLimiter(limit: 1)
        let fetch = ManualFetch<Int>()
        let running = ConcurrencyLimitingLoadable(wrapping: BlockLoadable { try await fetch.run("running") }, limiter: limiter)
        let next = ConcurrencyLimitingLoadable(wrapping: BlockLoadable { try await fetch.run("next") }, limiter: limiter)

        let runningLoad = Task { await running.load() }
        #expect(try await eventually { fetch.waitingCount == 1 })
        let nextLoad = Task { await next.load() }
        #expect(try await eventually { limiter.waitingCount == 1 })

        running.cancel()
        try #require(await finishes(runningLoad))
        #expect(try await eventually { fetch.started == ["running", "next"] })
        fetch.succeed(2)
        await nextLoad.value
        #expect(running.base.currentState.summary == "loading(canceled)")
        #expect(next.currentState.summary == "loaded(2)")
    }

    @Test func higherPriorityLoadersGetTheNextSlotFirst() async throws {
        let limiter = PriorityLimiter(limit: 1)
        let fetch = ManualFetch<Int>()
        let holder = ConcurrencyLimitingLoadable(wrapping: BlockLoadable { try await fetch.run("holder") }, limiter: limiter)
        let prefetch = ConcurrencyLimitingLoadable(wrapping: BlockLoadable { try await fetch.run("prefetch") },
                                                   limiter: limiter, priority: .prefetch)
        let visible = ConcurrencyLimitingLoadable(wrapping: BlockLoadable { try await fetch.run("visible") },
                                                  limiter: limiter, priority: .visible)

        let loads = [Task { await holder.load() }]
        #expect(try await eventually { fetch.waitingCount == 1 })
        let queued = [Task { await prefetch.load() }, Task { await visible.load() }]
        #expect(try await eventually { limiter.waitingCount == 2 })

        fetch.succeed(1)
        #expect(try await eventually { fetch.callCount == 2 })
        fetch.succeed(2)
        #expect(try await eventually { fetch.callCount == 3 })
        fetch.succeed(3)
        for load in loads + queued { await load.value }
        #expect(fetch.started == ["holder", "visible", "prefetch"])
    }
}
