import Logging

/// Asks the tier below again after a transient failure, as a ``RetryPolicy``
/// allows; a 4xx (but 408/429), a corrupt body or a cancellation never.
struct RetryingTier: OriginalProviding {
    let next: any OriginalProviding
    let policy: RetryPolicy
    let statistics: StatisticsCounter
    let logger: Logger

    func original(for request: OriginalRequest) async throws -> Original {
        var attempt = 1
        while true {
            do {
                return try await next.original(for: request)
            } catch let error as DataLoadingError where error.isTransient {
                guard let delay = policy.delay(afterAttempt: attempt, retryAfter: error.retryAfter) else { throw error }
                attempt += 1
                statistics.record { $0.retries += 1 }
                logger.warning("retrying", metadata: ["url": "\(request.url)", "attempt": "\(attempt)",
                                                      "delay": "\(delay)", "error": "\(error)"])
                request.report(.retrying(attempt: attempt, of: policy.maximumAttempts, after: delay, reason: "\(error)"))
                try await Task.sleep(for: delay)
            }
        }
    }
}
