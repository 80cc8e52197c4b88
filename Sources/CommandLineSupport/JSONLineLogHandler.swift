import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A swift-log handler that writes each message as one JSON object on one line of
/// standard output: `time` (UTC, ISO 8601 with milliseconds), `message` unless it is
/// empty, then the metadata by key, numbers as JSON numbers. `thumbnailer serve`'s
/// access log. Each line goes out whole in one write, in the order logged.
package struct JSONLineLogHandler: LogHandler {
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level = .info

    package init() {}

    /// Serialises the lines of every handler: writes from several threads must not interleave.
    private static let output = Mutex(())

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var line = JSONLine()
        line.add("time", Self.timestamp())
        let message = "\(event.message)"
        if !message.isEmpty { line.add("message", message) }
        let merged = metadata.isEmpty ? event.metadata ?? [:] : metadata.merging(event.metadata ?? [:]) { $1 }
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            Self.add(value, as: key, to: &line)
        }
        Self.emit(line.text + "\n")
    }

    /// Integers and finite doubles as numbers; everything else as its text.
    private static func add(_ value: Logger.Metadata.Value, as key: String, to line: inout JSONLine) {
        switch value {
        case let .stringConvertible(number as Int): line.add(key, number)
        case let .stringConvertible(number as Double): line.add(key, number)
        case let .string(text): line.add(key, text)
        default: line.add(key, "\(value)")
        }
    }

    private static func emit(_ text: String) {
        output.withLock { _ in
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }  // a closed stdout loses the log, never the request
                bytes = bytes.dropFirst(written)
            }
        }
    }

    /// Now, as `2026-11-27T16:50:01.123Z`.
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &parts)
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(Int(parts.tm_year) + 1900, 4))-\(padded(Int(parts.tm_mon) + 1, 2))-\(padded(Int(parts.tm_mday), 2))"
            + "T\(padded(Int(parts.tm_hour), 2)):\(padded(Int(parts.tm_min), 2)):\(padded(Int(parts.tm_sec), 2))"
            + ".\(padded(now.tv_nsec / 1_000_000, 3))Z"
    }
}
