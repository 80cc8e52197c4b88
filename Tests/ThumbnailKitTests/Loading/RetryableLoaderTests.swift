import Synchronization
import TestSupport
import Testing
import ThumbnailKit

/// RetryableLoader loads its base again after a failure, waiting the policy's
/// backoff, up to the policy's attempts.
@MainActor @Suite(.timeLimit(.minutes(1))) struct RetryableLoaderTests {
    /// Waits 100 ms, then 200 ms: no jitter, so the messages are exact.
    let threeAttempts = RetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(100), multiplier: 2, jitter: 0)

    @Test func aSuccessfulFirstAttemptShowsIdleLoadingLoaded() async {
        let fetch = ScriptedFetch<Int>([.success(1)])
        let loader = RetryableLoader(base: BlockLoadable { try fetch.run() }, policy: threeAttempts)
        let states = loader.recordStates(through: \.isSettled)

        await loader.load()
        #expect(await states.value.map(\.summary) == ["idle", "loading", "loaded(1)"])
        #expect(fetch.callCount == 1)
    }

    @Test func aBaseThatFailsTwiceThenSucceedsIsLoadedThreeTimesWithRetryMessagesInOrder() async {
        let fetch = ScriptedFetch<Int>([.failure(TestFailure("503")), .failure(TestFailure("503")), .success(3)])
        let base = BlockLoadable { try fetch.run() }
        let loader = RetryableLoader(base: base, policy: threeAttempts)
        let states = loader.recordStates(through: \.isSettled)
        let baseStates = base.recordStates(through: { $0.phase == .loaded })

        await loader.load()
        #expect(await states.value.map(\.summary) == [
            "idle", "loading",
            "loading(retrying in 0.1 s (attempt 2 of 3))", "loading",
            "loading(retrying in 0.2 s (attempt 3 of 3))", "loading",
            "loaded(3)",
        ])
        #expect(await baseStates.value.map(\.summary) == [
            "idle", "loading", "failure(503)",
            "idle", "loading", "failure(503)",
            "idle", "loading", "loaded(3)",
        ], "the base is reset before each retry")
        #expect(fetch.callCount == 3)
    }

    @Test func whenEveryAttemptFailsTheLastErrorEndsItAfterExactlyMaxAttempts() async {
        let fetch = ScriptedFetch<Int>([.failure(TestFailure("first")), .failure(TestFailure("second")),
                                        .failure(TestFailure("third")), .success(4)])
        let loader = RetryableLoader(base: BlockLoadable { try fetch.run() }, policy: threeAttempts)
        let states = loader.recordStates(through: \.isSettled)

        await loader.load()
        #expect(await states.value.map(\.summary) == [
            "idle", "loading",
            "loading(retrying in 0.1 s (attempt 2 of 3))", "loading",
            "loading(retrying in 0.2 s (attempt 3 of 3))", "loading",
            "failure(third)",
        ], "earlier failures are retried, not shown")
        #expect(fetch.callCount == 3)
    }

    @Test func maxAttemptsOfOneNeverRetries() async {
        let fetch = ScriptedFetch<Int>([.failure(TestFailure("offline")), .success(2)])
        let loader = RetryableLoader(base: BlockLoadable { try fetch.run() }, maxAttempts: 1)
        let states = loader.recordStates(through: \.isSettled)

        await loader.load()
        #expect(await states.value.map(\.summary) == ["idle", "loading", "failure(offline)"])
        #expect(fetch.callCount == 1)
    }

    @Test func cancelDuringTheBackoffWaitStopsAtOnce() async throws {
        let fetch = ScriptedFetch<Int>([.failure(TestFailure("503")), .success(2)])
        let policy = RetryPolicy(maximumAttempts: 3, initialDelay: .seconds(600), jitter: 0)
        let loader = RetryableLoader(base: BlockLoadable { try fetch.run() }, policy: policy)
        let waiting = loader.recordStates(through: { $0.progress?.message?.hasPrefix("retrying") == true })
        let log = EventLog()
        _ = Task {
            await loader.load()
            log.append("load returned")
        }
        _ = await waiting.value

        loader.cancel()
        #expect(loader.currentState.summary == "loading(canceled)")
        try #require(await eventually { log.events == ["load returned"] }, "the ten-minute wait was cut short")
        #expect(fetch.callCount == 1)
        #expect(loader.isCanceled)
    }

    @Test func resetDuringTheBackoffWaitReturnsToIdleWithoutAnotherAttempt() async throws {
        let fetch = ScriptedFetch<Int>([.failure(TestFailure("503")), .success(2)])
        let policy = RetryPolicy(maximumAttempts: 3, initialDelay: .seconds(600), jitter: 0)
        let base = BlockLoadable { try fetch.run() }
        let loader = RetryableLoader(base: base, policy: policy)
        let waiting = loader.recordStates(through: { $0.progress?.message?.hasPrefix("retrying") == true })
        let load = Task { await loader.load() }
        _ = await waiting.value

        loader.reset()
        try #require(await finishes(load))
        #expect(loader.currentState.summary == "idle")
        #expect(base.currentState.summary == "idle", "the base's failure is cleared for the next load")
        #expect(fetch.callCount == 1)
    }

    @Test func theBasesProgressShowsThroughTheWrapper() async throws {
        let source = ManualFetch<String>()
        let loader = RetryableLoader(base: BaseLoadableTests.SteppedLoader(source: source), policy: threeAttempts)
        let states = loader.recordStates(through: \.isSettled)

        let load = Task { await loader.load() }
        #expect(try await eventually { loader.currentState.summary == "loading(connecting, 10%)" })
        source.succeed("done")
        await load.value
        let recorded = await states.value.map(\.summary)
        #expect(recorded.starts(with: ["idle", "loading", "loading(connecting, 10%)"]))
        #expect(recorded.last == "loaded(done)")
    }

    /// What the pipeline has given up on, or what no attempt can mend.
    nonisolated static let permanentFailures: [any Error & Sendable] = [
        DataLoadingError.httpStatus("http://host/a.png", status: 404, retryAfter: nil),
        DataLoadingError.notFound("file:///a.png"),
        ThumbnailDecodingError.corrupt("bad Huffman code"),
        // As a pipeline throws them: judged by the error beneath.
        ThumbnailError(DataLoadingError.httpStatus("http://host/a.png", status: 404, retryAfter: nil)),
        ThumbnailError(ThumbnailDecodingError.corrupt("bad Huffman code")),
    ]

    @Test(arguments: permanentFailures)
    func aPermanentFailureIsNotRetried(_ failure: any Error & Sendable) async {
        let calls = Mutex(0)
        let loader = RetryableLoader(base: BlockLoadable<Int> {
            calls.withLock { $0 += 1 }
            throw failure
        }, policy: threeAttempts)
        await loader.load()
        #expect(calls.withLock { $0 } == 1, "tried once")
        #expect(loader.currentState.phase == .failure)
    }

    @Test func aTransientFailureIsRetried() async {
        let calls = Mutex(0)
        let loader = RetryableLoader(base: BlockLoadable<Int> {
            let call = calls.withLock { calls in
                calls += 1
                return calls
            }
            guard call > 1 else { throw DataLoadingError.httpStatus("http://host/a.png", status: 503, retryAfter: nil) }
            return call
        }, policy: threeAttempts)
        await loader.load()
        #expect(loader.currentState.value == 2)
    }

    @Test func aShouldRetryPredicateDecidesWhatIsRetried() async {
        let fetch = ScriptedFetch<Int>([.failure(TestFailure("quota")), .success(2)])
        let loader = RetryableLoader(base: BlockLoadable { try fetch.run() }, policy: threeAttempts) { error in
            (error as? TestFailure)?.description != "quota"
        }
        await loader.load()
        #expect(fetch.callCount == 1 && loader.currentState.error is TestFailure)
    }
}
