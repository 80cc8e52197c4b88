import Synchronization
import Testing
import TestSupport
@testable import ThumbnailKit

/// The concurrency bound, priority order, raising and cancellation of PriorityLimiter.
@Suite struct PriorityLimiterTests {
    /// Records the order operations start in and the most that ran at once.
    final class Recorder: Sendable {
        private let state = Mutex((running: 0, peak: 0, finished: 0, order: [String]()))

        func begin(_ name: String) {
            state.withLock { state in
                state.running += 1
                state.peak = max(state.peak, state.running)
                state.order.append(name)
            }
        }

        func end() {
            state.withLock { state in
                state.running -= 1
                state.finished += 1
            }
        }

        var running: Int { state.withLock { $0.running } }
        var peak: Int { state.withLock { $0.peak } }
        var finished: Int { state.withLock { $0.finished } }
        var order: [String] { state.withLock { $0.order } }
    }

    /// Lets the operations holding slots finish one at a time, on the test's cue.
    final class Turnstile: Sendable {
        private let state = Mutex((passes: 0, isOpen: false, waiting: [CheckedContinuation<Void, Never>]()))

        /// Waits for a pass (or uses one handed out before anyone waited).
        func pass() async {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool in
                    if state.isOpen { return true }
                    guard state.passes == 0 else {
                        state.passes -= 1
                        return true
                    }
                    state.waiting.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }

        /// Lets one waiter through.
        func letOneThrough() {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard !state.waiting.isEmpty else {
                    state.passes += 1
                    return nil
                }
                return state.waiting.removeFirst()
            }
            waiter?.resume()
        }

        /// Lets everyone through, now and later (so a failed test ends).
        func open() {
            let waiters = state.withLock { state in
                state.isOpen = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// A gate the holder of the only slot waits at, so others queue up behind it.
    final class Gate: Sendable {
        private let stream: AsyncStream<Void>
        private let continuation: AsyncStream<Void>.Continuation
        private let reached = Mutex(false)

        init() {
            (stream, continuation) = AsyncStream.makeStream()
        }

        /// Whether the holder is inside its slot, waiting at the gate.
        var isHeld: Bool { reached.withLock { $0 } }

        func open() { continuation.finish() }

        func wait() async {
            reached.withLock { $0 = true }
            for await _ in stream {}
        }
    }


    /// A one-slot limiter whose slot a task holds until `gate.open()`, so others queue behind it.
    func limiterWithItsOnlySlotHeld() async throws -> (PriorityLimiter, Gate, Task<Void, any Error>) {
        let limiter = PriorityLimiter(limit: 1)
        let gate = Gate()
        let holder = Task { try await limiter.run(priority: .visible) { await gate.wait() } }
        #expect(try await eventually { gate.isHeld })
        return (limiter, gate, holder)
    }

    @Test func exactlyTheLimitRunsAtOnceAndEachFreedSlotGoesToTheBestWaiter() async throws {
        let limiter = PriorityLimiter(limit: 3)
        let recorder = Recorder()
        let turnstile = Turnstile()
        let jobs = 10
        func priority(of job: Int) -> RequestPriority { RequestPriority.allCases[job % 3] }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for job in 0..<jobs {
                group.addTask {
                    try await limiter.run(priority: priority(of: job)) {
                        recorder.begin("\(job)")
                        await turnstile.pass()
                        recorder.end()
                    }
                }
            }
            defer { turnstile.open() }
            // Every job is running or queued; none can finish yet.
            #expect(try await eventually { recorder.running + limiter.waitingCount == jobs })
            try #require(recorder.running == 3 && limiter.waitingCount == jobs - 3, "running \(recorder.running)")

            for finished in 1...jobs {
                turnstile.letOneThrough()
                let running = min(3, jobs - finished)
                try #require(try await eventually { recorder.finished == finished && recorder.running == running },
                             "after \(finished) finished: running \(recorder.running)")
            }
            try await group.waitForAll()
        }
        #expect(recorder.peak == 3)
        // The first three took free slots in whatever order they came; every
        // later one waited, and the waiters went highest priority first.
        let waitersInOrder = recorder.order.dropFirst(3).map { priority(of: Int($0)!) }
        #expect(waitersInOrder == waitersInOrder.sorted(by: >), "\(recorder.order)")
    }

    @Test func waitersRunByPriorityThenArrival() async throws {
        let (limiter, gate, holder) = try await limiterWithItsOnlySlotHeld()
        let recorder = Recorder()

        var waiters: [Task<Void, any Error>] = []
        for (name, priority) in [("prefetch-1", RequestPriority.prefetch), ("prefetch-2", .prefetch),
                                 ("visible-1", .visible), ("normal-1", .normal), ("visible-2", .visible)] {
            waiters.append(Task { try await limiter.run(priority: priority) { recorder.begin(name) } })
            #expect(try await eventually { limiter.waitingCount == waiters.count })
        }
        gate.open()
        try await holder.value
        for waiter in waiters { try await waiter.value }

        #expect(recorder.order == ["visible-1", "visible-2", "normal-1", "prefetch-1", "prefetch-2"])
    }

    @Test func raisingAWaitersPriorityMovesItAhead() async throws {
        let (limiter, gate, holder) = try await limiterWithItsOnlySlotHeld()
        let recorder = Recorder()

        let first = Task { try await limiter.run(priority: .prefetch) { recorder.begin("first prefetch") } }
        #expect(try await eventually { limiter.waitingCount == 1 })
        let ticket = limiter.makeTicket()
        let second = Task { try await limiter.run(priority: .prefetch, ticket: ticket) { recorder.begin("scrolled into view") } }
        #expect(try await eventually { limiter.waitingCount == 2 })
        ticket.raise(to: .visible)
        ticket.raise(to: .prefetch)  // never lowers

        gate.open()
        try await holder.value
        try await first.value
        try await second.value
        #expect(recorder.order == ["scrolled into view", "first prefetch"])
    }

    @Test func aWaiterCancelledInTheQueueLeavesWithoutTakingASlot() async throws {
        let (limiter, gate, holder) = try await limiterWithItsOnlySlotHeld()
        let recorder = Recorder()

        let cancelled = Task { try await limiter.run(priority: .visible) { recorder.begin("cancelled") } }
        #expect(try await eventually { limiter.waitingCount == 1 })
        let later = Task { try await limiter.run(priority: .prefetch) { recorder.begin("later") } }
        #expect(try await eventually { limiter.waitingCount == 2 })

        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(limiter.waitingCount == 1)
        gate.open()
        try await holder.value
        try await later.value
        #expect(recorder.order == ["later"])
    }

    @Test func aTaskCancelledBeforeItAsksNeverRuns() async throws {
        let (limiter, gate, holder) = try await limiterWithItsOnlySlotHeld()

        let recorder = Recorder()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await limiter.run(priority: .visible) { recorder.begin("should not run") }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(limiter.waitingCount == 0)
        gate.open()
        try await holder.value
        #expect(recorder.order.isEmpty)
        // The slot is free again.
        try await limiter.run(priority: .prefetch) { recorder.begin("after") }
        #expect(recorder.order == ["after"])
    }

    /// Slots handed back while others ask for them are never lost: a release
    /// that lands between a caller's "no slot free" and its joining the queue
    /// must still reach it. Thousands of contended rounds, with a watchdog that
    /// cancels the callers if they stop moving (a lost wake-up hangs them; the
    /// limiter lost one before the free-slot check and the enqueue shared a lock).
    @Test func noSlotIsLostWhenAReleaseRacesAnArrival() async throws {
        let limiter = PriorityLimiter(limit: 1)
        let rounds = 100_000, callers = 2
        let completed = Recorder()
        let work = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<callers {
                    group.addTask {
                        for _ in 0..<rounds {
                            try await limiter.run(priority: .visible) { completed.end() }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        // A stall is 200 looks in a row (10 s or more) with no round done. Counted in
        // looks, not time, so a busy machine that runs nobody for a while is not one.
        var last = -1, looksWithoutProgress = 0
        while completed.finished < rounds * callers, looksWithoutProgress < 200 {
            looksWithoutProgress = completed.finished == last ? looksWithoutProgress + 1 : 0
            last = completed.finished
            try await Task.sleep(for: .milliseconds(50))
        }
        work.cancel()
        _ = await work.result
        #expect(completed.finished == rounds * callers, "stalled with \(limiter.waitingCount) waiting")
    }
}
