import TestSupport
import Testing
import ThumbnailKit

/// DebouncingLoadable debounces load() calls, not states: bursts of calls
/// become one load of the base, and its state is the base's.
@MainActor @Suite(.timeLimit(.minutes(1))) struct DebouncingLoadableTests {
    /// Records every call it gets in a shared log; each load shows a new value at once.
    final class LoadSpy: Loadable {
        private let relay = StateRelay<LoadingState<Int>>(.idle)
        private let log: EventLog
        private(set) var loadCount = 0

        init(log: EventLog) {
            self.log = log
        }

        var state: AsyncStream<LoadingState<Int>> { relay.values() }
        var currentState: LoadingState<Int> { relay.value }
        var isCanceled: Bool { false }

        func load() async {
            loadCount += 1
            log.append("base loaded")
            relay.send(.loading(nil))
            relay.send(.loaded(loadCount))
        }

        func reset() {
            log.append("base reset")
            relay.send(.idle)
        }

        func cancel() {
            log.append("base cancelled")
        }
    }

    /// Calls `debouncer.load()` in a task that logs "call <name>" just before
    /// and "call <name> returned" after, and returns once the call is under
    /// way (so calls reach the debouncer in the order the test makes them).
    func startCall(_ name: String, on debouncer: DebouncingLoadable<LoadSpy>,
                   log: EventLog) async throws -> Task<Void, Never> {
        let call = Task {
            log.append("call \(name)")
            await debouncer.load()
            log.append("call \(name) returned")
        }
        #expect(try await eventually { log.events.contains("call \(name)") })
        return call
    }

    /// Calls `debouncer.load()` from `count` tasks made at once, so the calls
    /// come one right after another on the main actor (no sleep between them
    /// to stretch the burst). Each logs "call <n>" just before and
    /// "call <n> returned" after; the log says the order they came in.
    func burst(of count: Int, on debouncer: DebouncingLoadable<LoadSpy>, log: EventLog) -> [Task<Void, Never>] {
        (1...count).map { name in
            Task {
                log.append("call \(name)")
                await debouncer.load()
                log.append("call \(name) returned")
            }
        }
    }

    /// The calls of `log` in the order they came.
    func calls(in log: EventLog) -> [String] {
        log.events.filter { $0.hasPrefix("call") && !$0.hasSuffix("returned") }
    }

    @Test func callsWithinTheIntervalCollapseIntoOneLoadAfterThePause() async throws {
        let log = EventLog()
        let spy = LoadSpy(log: log)
        let debouncer = DebouncingLoadable(wrapping: spy, interval: .milliseconds(100))

        for call in burst(of: 5, on: debouncer, log: log) { await call.value }
        #expect(spy.loadCount == 1)
        let last = try #require(calls(in: log).last)
        #expect(log.events.suffix(2) == ["base loaded", "\(last) returned"], "the last call's wait ran out")
    }

    @Test func aLaterCallReplacesThePendingWaitAndTheLastCallLoads() async throws {
        let log = EventLog()
        let spy = LoadSpy(log: log)
        let debouncer = DebouncingLoadable(wrapping: spy, interval: .milliseconds(100))

        for call in burst(of: 2, on: debouncer, log: log) { await call.value }
        let (first, second) = (calls(in: log)[0], calls(in: log)[1])
        #expect(log.events == [first, second, "\(first) returned", "base loaded", "\(second) returned"])
    }

    @Test func aReplacedCallReturnsAtOnceWithoutLoading() async throws {
        let log = EventLog()
        let spy = LoadSpy(log: log)
        let debouncer = DebouncingLoadable(wrapping: spy, interval: .seconds(600))

        _ = try await startCall("1", on: debouncer, log: log)
        let second = try await startCall("2", on: debouncer, log: log)
        #expect(try await eventually { log.events.contains("call 1 returned") },
                "the first call did not sit out its ten minutes")
        #expect(spy.loadCount == 0)

        debouncer.cancel()
        try #require(await finishes(second))
        #expect(log.events == ["call 1", "call 2", "call 1 returned", "base cancelled", "call 2 returned"])
    }

    @Test func theLoadWaitsForTheIntervalAfterTheLastCall() async {
        let spy = LoadSpy(log: EventLog())
        let debouncer = DebouncingLoadable(wrapping: spy, interval: .milliseconds(50))
        let clock = ContinuousClock()

        let start = clock.now
        await debouncer.load()
        #expect(clock.now - start >= .milliseconds(50))
        #expect(spy.loadCount == 1)
    }

    @Test func executeFirstImmediatelyLoadsTheFirstCallOfABurstWithoutWaiting() async throws {
        let log = EventLog()
        let spy = LoadSpy(log: log)
        let debouncer = DebouncingLoadable(wrapping: spy, interval: .seconds(600), executeFirstImmediately: true)

        _ = try await startCall("1", on: debouncer, log: log)
        #expect(try await eventually { log.events == ["call 1", "base loaded", "call 1 returned"] },
                "the first call did not wait ten minutes")
        let second = try await startCall("2", on: debouncer, log: log)
        #expect(spy.loadCount == 1, "the second call of the burst waits for the pause")

        debouncer.cancel()
        try #require(await finishes(second))
        #expect(log.events.suffix(3) == ["call 2", "base cancelled", "call 2 returned"])
    }

    @Test func executeFirstImmediatelyCollapsesTheRestOfTheBurstIntoOneTrailingLoad() async throws {
        let log = EventLog()
        let spy = LoadSpy(log: log)
        let debouncer = DebouncingLoadable(wrapping: spy, interval: .milliseconds(100), executeFirstImmediately: true)

        for call in burst(of: 4, on: debouncer, log: log) { await call.value }
        #expect(spy.loadCount == 2, "one load for the first call, one after the pause for the rest")
        let (first, last) = (calls(in: log)[0], try #require(calls(in: log).last))
        #expect(log.events.prefix(3) == [first, "base loaded", "\(first) returned"])
        #expect(log.events.suffix(2) == ["base loaded", "\(last) returned"])
    }

    @Test func cancelDropsThePendingWaitSoNothingLoads() async throws {
        let log = EventLog()
        let spy = LoadSpy(log: log)
        let debouncer = DebouncingLoadable(wrapping: spy, interval: .milliseconds(50))

        let pending = try await startCall("1", on: debouncer, log: log)
        debouncer.cancel()
        try #require(await finishes(pending))
        #expect(log.events == ["call 1", "base cancelled", "call 1 returned"])
    }

    @Test func resetDropsThePendingWaitAndResetsTheBase() async throws {
        let log = EventLog()
        let spy = LoadSpy(log: log)
        let debouncer = DebouncingLoadable(wrapping: spy, interval: .milliseconds(50))

        let pending = try await startCall("1", on: debouncer, log: log)
        debouncer.reset()
        try #require(await finishes(pending))
        #expect(log.events == ["call 1", "base reset", "call 1 returned"])
    }

    @Test func itsStatesAreTheBasesStates() async {
        let base = BlockLoadable { 42 }
        let debouncer = DebouncingLoadable(wrapping: base, interval: .milliseconds(10))
        let states = debouncer.recordStates(through: \.isSettled)

        await debouncer.load()
        #expect(await states.value.map(\.summary) == ["idle", "loading", "loaded(42)"])
        #expect(debouncer.currentState.summary == base.currentState.summary)
    }

    @Test func aFailingBaseShowsItsFailureThroughTheDebouncer() async {
        let debouncer = DebouncingLoadable(wrapping: BlockLoadable<Int> { throw TestFailure("gone") },
                                           interval: .milliseconds(10))
        let states = debouncer.recordStates(through: \.isSettled)

        await debouncer.load()
        #expect(await states.value.map(\.summary) == ["idle", "loading", "failure(gone)"])
    }
}
