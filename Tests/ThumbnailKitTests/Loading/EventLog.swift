/// What happened, in order, on the main actor: calls returning, a spy's
/// loads. Tests compare orders instead of measuring time.
@MainActor final class EventLog {
    private(set) var events: [String] = []

    func append(_ event: String) {
        events.append(event)
    }
}
