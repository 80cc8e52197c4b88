import Logging
import Synchronization
import TestSupport
import Testing
import ThumbnailHTTP
import ThumbnailKit

/// What the pipeline logs about a failure its caller receives: a debug line, never a warning, so
/// an app that handles the error gets no stderr line for it.
@Suite final class PipelineLoggingTests: Sendable {
    let server: TestHTTPServer

    init() throws {
        server = try TestHTTPServer()
    }

    deinit { server.stop() }

    @Test func aNotFoundTheCallerReceivesIsLoggedAtDebugAndNoHigher() async throws {
        server.route("/missing.jpg", .init(status: 404))
        let records = Mutex<[RecordingLogHandler.Record]>([])
        let logger = Logger(label: "test") { _ in RecordingLogHandler { record in records.withLock { $0.append(record) } } }
        let pipeline = ThumbnailPipeline(configuration: .init(dataLoader: try HTTPDataLoader(), logger: logger))

        await #expect(throws: ThumbnailError.self) { try await pipeline.thumbnail(for: self.server.url("/missing.jpg"), size: 64) }

        let logged = records.withLock { $0 }
        #expect(logged.filter { $0.level >= .warning }.isEmpty, "\(logged)")
        #expect(logged.contains { $0.level == .debug && $0.message == "failed" && $0.error?.hasSuffix("HTTP 404") == true },
                "\(logged)")
    }
}
