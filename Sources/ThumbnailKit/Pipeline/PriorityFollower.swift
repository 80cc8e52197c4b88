import Synchronization

/// Carries a shared work's priority into the limiter queues it waits in: when
/// a visible row joins a prefetch, the queued download and decode move up.
final class PriorityFollower: Sendable {
    private let state: Mutex<(priority: RequestPriority, tickets: [PriorityLimiter.Ticket])>

    init(_ priority: RequestPriority) {
        state = Mutex((priority, []))
    }

    /// The priority now.
    var current: RequestPriority { state.withLock { $0.priority } }

    /// Raises the priority, and with it every ticket followed so far.
    func raise(to priority: RequestPriority) {
        let tickets = state.withLock { state -> [PriorityLimiter.Ticket] in
            guard priority > state.priority else { return [] }
            state.priority = priority
            return state.tickets
        }
        for ticket in tickets { ticket.raise(to: priority) }
    }

    /// Raises `ticket` along with later rises.
    func follow(with ticket: PriorityLimiter.Ticket) {
        state.withLock { $0.tickets.append(ticket) }
    }
}
