import Testing
import ThumbnailKit

/// Backoff, jitter, Retry-After and which statuses are worth a retry.
@Suite struct RetryPolicyTests {
    @Test func waitsGrowExponentiallyUpToTheCapAndStopAfterTheLastAttempt() {
        let policy = RetryPolicy(maximumAttempts: 6, initialDelay: .milliseconds(100), multiplier: 2,
                                 maximumDelay: .milliseconds(500), jitter: 0)
        var generator = SystemRandomNumberGenerator()
        let waits = (1...6).map { policy.delay(afterAttempt: $0, using: &generator) }
        #expect(waits == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(500),
                          .milliseconds(500), nil])
    }

    @Test func jitterSpreadsEachWaitWithinItsFraction() {
        let policy = RetryPolicy(maximumAttempts: 3, initialDelay: .seconds(1), jitter: 0.25)
        var generator = SystemRandomNumberGenerator()
        let waits = (0..<500).compactMap { _ in policy.delay(afterAttempt: 1, using: &generator) }
        #expect(waits.count == 500)
        #expect(waits.allSatisfy { $0 >= .milliseconds(750) && $0 <= .milliseconds(1250) })
        #expect(Set(waits).count > 100, "waits differ from client to client")
    }

    @Test func aServersRetryAfterIsHonouredUpToTheLimit() {
        let policy = RetryPolicy(maximumAttempts: 3, maximumRetryAfter: .seconds(30))
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(7)) == .seconds(7))
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(31)) == nil, "too long: fail instead of stalling")
        #expect(policy.delay(afterAttempt: 3, retryAfter: .seconds(1)) == nil, "no attempt left")
    }

    @Test func retryAfterParsesSecondsAndHTTPDates() {
        let now: Int64 = 1_795_322_800  // 2026-11-22 04:46:40 UTC
        #expect(RetryPolicy.retryAfter(headerValue: "120", now: now) == .seconds(120))
        #expect(RetryPolicy.retryAfter(headerValue: " 0 ", now: now) == .zero)
        // now + 90 s, written as an IMF-fixdate.
        #expect(RetryPolicy.retryAfter(headerValue: "Sun, 22 Nov 2026 04:48:10 GMT", now: now) == .seconds(90))
        #expect(RetryPolicy.retryAfter(headerValue: "Sun, 22 Nov 2026 04:00:00 GMT", now: now) == .zero, "a past date")
        for invalid in ["", "-5", "soon", "Sunday, 22-Nov-26 04:48:10 GMT", "Sun, 22 Nov 2026 25:00:00 GMT",
                        "Sun, 22 Foo 2026 04:48:10 GMT", "Sun, 22 Nov 2026 04:48:10 PST"] {
            #expect(RetryPolicy.retryAfter(headerValue: invalid, now: now) == nil, "\(invalid)")
        }
    }

    @Test(arguments: [(408, true), (429, true), (500, true), (502, true), (503, true), (504, true), (501, false),
                      (505, false), (400, false), (403, false), (404, false), (410, false), (200, false), (304, false)])
    func onlyTransientStatusesAreRetried(status: Int, transient: Bool) {
        #expect(RetryPolicy.isTransient(status: status) == transient)
    }

    @Test func neverMeansOneAttempt() {
        #expect(RetryPolicy.never.delay(afterAttempt: 1) == nil)
    }
}
