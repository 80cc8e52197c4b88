/// What a request is doing, reported while it waits: for loading states
/// (a percentage while bytes arrive, a message while a retry waits).
public enum ThumbnailProgress: Sendable, Hashable {
    /// Bytes of the original are arriving.
    case fetching(TransferProgress)
    /// A transient failure; the next attempt starts after `delay`.
    case retrying(attempt: Int, of: Int, after: Duration, reason: String)
    /// The original is being decoded.
    case decoding

    /// 0…100 while bytes arrive with a known total; 100 once decoding.
    public var percent: Double? {
        switch self {
        case let .fetching(transfer): transfer.percent
        case .retrying: nil
        case .decoding: 100
        }
    }

    /// A line for a status display: "retrying in 0.5 s (attempt 2 of 3): HTTP 503".
    public var message: String? {
        switch self {
        case .fetching, .decoding:
            return nil
        case let .retrying(attempt, maximum, delay, reason):
            return "retrying in \(delay.secondsToTenths) s (attempt \(attempt) of \(maximum)): \(reason)"
        }
    }
}
