#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// When and how long to wait before trying a failed transfer again:
/// exponential backoff with jitter, honouring a server's `Retry-After`.
///
/// Only transient failures are retried (see ``isTransient(status:)``); never a
/// 4xx other than 408 and 429, never a corrupt image, never a cancelled request.
public struct RetryPolicy: Sendable, Hashable {
    /// Tries in total, the first included. Default: 3.
    public var maximumAttempts: Int
    /// The wait after the first failure. Default: 250 ms.
    public var initialDelay: Duration
    /// Each further wait is this many times the previous one. Default: 2.
    public var multiplier: Double
    /// No computed wait exceeds this. Default: 8 s.
    public var maximumDelay: Duration
    /// Each wait is spread uniformly by ± this fraction, so clients that failed
    /// together do not retry together. Default: 0.25.
    public var jitter: Double
    /// The longest `Retry-After` honoured; a server asking for more ends the
    /// retries (a row should fail visibly rather than wait an hour). Default: 30 s.
    public var maximumRetryAfter: Duration

    /// A policy with the given backoff; a precondition failure unless
    /// `maximumAttempts` ≥ 1, `multiplier` ≥ 1 and `jitter` is in 0…1.
    /// - Parameters:
    ///   - maximumAttempts: Tries in total, the first included. Default: 3.
    ///   - initialDelay: The wait after the first failure. Default: 250 ms.
    ///   - multiplier: The factor from one wait to the next. Default: 2.
    ///   - maximumDelay: The longest computed wait. Default: 8 s.
    ///   - jitter: The fraction each wait is spread by, either way. Default: 0.25.
    ///   - maximumRetryAfter: The longest `Retry-After` honoured. Default: 30 s.
    public init(maximumAttempts: Int = 3, initialDelay: Duration = .milliseconds(250), multiplier: Double = 2,
                maximumDelay: Duration = .seconds(8), jitter: Double = 0.25,
                maximumRetryAfter: Duration = .seconds(30)) {
        precondition(maximumAttempts >= 1 && multiplier >= 1 && (0...1).contains(jitter))
        self.maximumAttempts = maximumAttempts
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.jitter = jitter
        self.maximumRetryAfter = maximumRetryAfter
    }

    /// Three attempts, 250 ms doubling up to 8 s, ± 25 %.
    public static let `default` = RetryPolicy()
    /// One attempt: never retry.
    public static let never = RetryPolicy(maximumAttempts: 1)

    /// Whether an HTTP status is worth another try: 408, 429 and 5xx except
    /// 501 (Not Implemented) and 505 (HTTP Version Not Supported), which will
    /// not change.
    public static func isTransient(status: Int) -> Bool {
        switch status {
        case 408, 429: true
        case 501, 505: false
        case 500...599: true
        default: false
        }
    }

    /// The wait before attempt `attempt + 1`, after attempt `attempt` (1-based)
    /// failed transiently; `nil` when no attempt is left or the server asked
    /// for a longer pause than ``maximumRetryAfter``.
    public func delay(afterAttempt attempt: Int, retryAfter: Duration? = nil,
                      using generator: inout some RandomNumberGenerator) -> Duration? {
        guard attempt >= 1, attempt < maximumAttempts else { return nil }
        if let retryAfter {
            return retryAfter <= maximumRetryAfter ? max(retryAfter, .zero) : nil
        }
        let base = initialDelay * pow(multiplier, Double(attempt - 1))
        let capped = min(base, maximumDelay)
        let spread = jitter == 0 ? 1 : Double.random(in: (1 - jitter)...(1 + jitter), using: &generator)
        return capped * spread
    }

    /// ``delay(afterAttempt:retryAfter:using:)`` with the system's random numbers.
    public func delay(afterAttempt attempt: Int, retryAfter: Duration? = nil) -> Duration? {
        var generator = SystemRandomNumberGenerator()
        return delay(afterAttempt: attempt, retryAfter: retryAfter, using: &generator)
    }

    /// Parses a `Retry-After` header: delta-seconds (`120`) or an HTTP-date
    /// (`Wed, 21 Oct 2026 07:28:00 GMT`, measured from `now`, seconds since
    /// 1970). `nil` for anything else, so the normal backoff applies.
    public static func retryAfter(headerValue: String, now: Int64) -> Duration? {
        let text = headerValue.trimmingSpaces
        if let seconds = Int64(text) {
            return seconds >= 0 ? .seconds(seconds) : nil
        }
        guard let date = HTTPDate.secondsSince1970(text) else { return nil }
        return .seconds(max(0, date - now))
    }
}

/// IMF-fixdate (RFC 9110 §5.6.7), the only HTTP-date form servers must send.
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT` as seconds since 1970; `nil` if malformed.
    static func secondsSince1970(_ text: String) -> Int64? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT",
              let day = Int32(parts[1]), parts[1].count == 2,
              let month = months.firstIndex(of: String(parts[2])),
              let year = Int32(parts[3]), parts[3].count == 4
        else { return nil }
        let clock = parts[4].split(separator: ":")
        guard clock.count == 3, let hour = Int32(clock[0]), let minute = Int32(clock[1]), let second = Int32(clock[2]),
              (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        var fields = tm()
        fields.tm_year = year - 1900
        fields.tm_mon = Int32(month)
        fields.tm_mday = day
        fields.tm_hour = hour
        fields.tm_min = minute
        fields.tm_sec = second
        return Int64(timegm(&fields))
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (no Foundation here).
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
