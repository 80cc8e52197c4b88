import Synchronization
import Testing
import TestSupport
import ThumbnailKit

/// The concurrency bound, priority order, raising and cancellation of PriorityLimiter.
@Suite struct PriorityLimiterTests {
    /// Records the order operations start in and the most that ran at once.
    final class Recorder: Sendable {
        private let state = Mutex((running: 0, peak: 0, order: [String]()))

        func begin(_ name: String) {
            state.withLock { state in
                state.running += 1
                state.peak = max(state.peak, state.running)
                state.order.append(name)
            }
        }

        func end() { state.withLock { $0.running -= 1 } }
        var peak: Int { state.withLock { $0.peak } }
        var order: [String] { state.withLock { $0.order } }
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

    @Test func neverMoreThanTheLimitRunAtOnce() async throws {
        let limiter = PriorityLimiter(limit: 3)
        let recorder = Recorder()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<40 {
                group.addTask {
                    try await limiter.run(priority: n % 2 == 0 ? .visible : .prefetch) {
                        recorder.begin("\(n)")
                        try await Task.sleep(for: .milliseconds(1))
                        recorder.end()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(recorder.peak <= 3)
        #expect(recorder.order.count == 40)
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
}
