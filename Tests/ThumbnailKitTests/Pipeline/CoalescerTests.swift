import Synchronization
import Testing
import TestSupport
@testable import ThumbnailKit

/// One piece of work per key in flight; callers leave alone; the last one cancels.
@Suite struct CoalescerTests {
    /// Counts work started and cancelled, and holds the work until opened.
    final class Probe: Sendable {
        private let state = Mutex((started: 0, cancelled: 0, open: false, raisedTo: [RequestPriority]()))

        var started: Int { state.withLock { $0.started } }
        var cancelled: Int { state.withLock { $0.cancelled } }
        var raisedTo: [RequestPriority] { state.withLock { $0.raisedTo } }
        func open() { state.withLock { $0.open = true } }

        /// The work: waits until opened (or cancelled), then returns `value`.
        func work(_ value: Int) -> @Sendable (SharedWork) async throws -> Int {
            { work in
                work.onPriorityRaised { priority in self.state.withLock { $0.raisedTo.append(priority) } }
                self.state.withLock { $0.started += 1 }
                do {
                    while !self.state.withLock({ $0.open }) { try await Task.sleep(for: .milliseconds(1)) }
                } catch {
                    self.state.withLock { $0.cancelled += 1 }
                    throw error
                }
                return value
            }
        }
    }


    @Test func twentyCallersForOneKeyShareOneRun() async throws {
        let coalescer = Coalescer<String, Int>()
        let probe = Probe()
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 {
                group.addTask { try await coalescer.value(for: "a.jpg", priority: .visible, work: probe.work(42)) }
            }
            // Every caller has joined, or a second run has started: either way the work is still held.
            #expect(try await eventually { coalescer.callerCount(for: "a.jpg") == 20 || probe.started > 1 })
            probe.open()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(probe.started == 1, "one run for twenty callers")
        #expect(results == Array(repeating: 42, count: 20))
        #expect(coalescer.inFlightCount == 0)
    }

    @Test func distinctKeysRunOnceEachAndEachCallerGetsItsKeysValue() async throws {
        let coalescer = Coalescer<String, Int>()
        let probe = Probe()
        let keys = 0..<8
        let results = try await withThrowingTaskGroup(of: (key: Int, value: Int).self) { group in
            for key in keys {
                for _ in 0..<3 {
                    group.addTask { (key, try await coalescer.value(for: "\(key).jpg", priority: .visible, work: probe.work(key))) }
                }
            }
            #expect(try await eventually {
                keys.allSatisfy { coalescer.callerCount(for: "\($0).jpg") == 3 } || probe.started > keys.count
            })
            probe.open()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(probe.started == keys.count, "one run per key")
        #expect(results.count == keys.count * 3 && results.allSatisfy { $0.key == $0.value })
    }

    @Test func oneCallerLeavingDoesNotCancelTheWorkForTheOther() async throws {
        let coalescer = Coalescer<String, Int>()
        let probe = Probe()
        let leaving = Task { try await coalescer.value(for: "k", priority: .visible, work: probe.work(1)) }
        #expect(try await eventually { probe.started == 1 })
        let staying = Task { try await coalescer.value(for: "k", priority: .visible, work: probe.work(2)) }
        #expect(try await eventually { coalescer.callerCount(for: "k") == 2 })

        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        probe.open()
        #expect(try await staying.value == 1, "the staying caller gets the shared work's result")
        #expect(probe.cancelled == 0 && probe.started == 1)
    }

    @Test func theLastCallerLeavingCancelsTheWork() async throws {
        let coalescer = Coalescer<String, Int>()
        let probe = Probe()
        let first = Task { try await coalescer.value(for: "k", priority: .prefetch, work: probe.work(1)) }
        let second = Task { try await coalescer.value(for: "k", priority: .prefetch, work: probe.work(1)) }
        #expect(try await eventually { probe.started == 1 })

        first.cancel()
        second.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        await #expect(throws: CancellationError.self) { try await second.value }
        #expect(try await eventually { probe.cancelled == 1 })
        #expect(coalescer.inFlightCount == 0)

        // A new request after that starts afresh.
        let again = Task { try await coalescer.value(for: "k", priority: .visible, work: probe.work(3)) }
        #expect(try await eventually { probe.started == 2 })
        probe.open()
        #expect(try await again.value == 3)
    }

    @Test func theWorkLearnsWhenAHigherPriorityCallerJoins() async throws {
        let coalescer = Coalescer<String, Int>()
        let probe = Probe()
        let prefetch = Task { try await coalescer.value(for: "k", priority: .prefetch, work: probe.work(7)) }
        #expect(try await eventually { probe.started == 1 })  // its observer is registered
        let visible = Task { try await coalescer.value(for: "k", priority: .visible, work: probe.work(7)) }
        #expect(try await eventually { probe.raisedTo == [.visible] })
        let another = Task { try await coalescer.value(for: "k", priority: .prefetch, work: probe.work(7)) }
        #expect(try await eventually { coalescer.callerCount(for: "k") == 3 })

        probe.open()
        #expect(try await [prefetch.value, visible.value, another.value] == [7, 7, 7])
        #expect(probe.raisedTo == [.visible], "a lower priority joining changes nothing")
    }

    @Test func anErrorReachesEveryCaller() async throws {
        struct Failure: Error {}
        let coalescer = Coalescer<String, Int>()
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    do {
                        _ = try await coalescer.value(for: "bad", priority: .visible) { _ in
                            try await Task.sleep(for: .milliseconds(20))
                            throw Failure()
                        }
                        return false
                    } catch {
                        return error is Failure
                    }
                }
            }
            for await sawFailure in group { #expect(sawFailure) }
        }
    }
}
