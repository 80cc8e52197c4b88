/// Lets at most `limiter.limit` requests into the tier below at once, served
/// by priority, then in order of arrival; a waiting request moves up as its
/// waiters' priority rises.
struct DownloadLimitingTier: OriginalProviding {
    let next: any OriginalProviding
    let limiter: PriorityLimiter

    func original(for request: OriginalRequest) async throws -> Original {
        let ticket = limiter.makeTicket()
        request.priority.follow(with: ticket)
        return try await limiter.run(priority: request.priority.current, ticket: ticket) {
            try await next.original(for: request)
        }
    }
}
