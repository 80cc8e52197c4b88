import Logging

/// A swift-log handler that hands every message, at every level, to `record`.
struct RecordingLogHandler: LogHandler {
    /// One message: its level, its text, and the `error` metadata when it has one.
    struct Record: Sendable, CustomStringConvertible {
        let level: Logger.Level
        let message: String
        let error: String?

        var description: String { "\(level) \(message)\(error.map { " error=\($0)" } ?? "")" }
    }

    let record: @Sendable (Record) -> Void
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        record(Record(level: event.level, message: "\(event.message)", error: event.metadata?["error"].map { "\($0)" }))
    }
}
