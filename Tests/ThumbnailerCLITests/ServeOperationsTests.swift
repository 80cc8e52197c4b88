import Foundation
import TestSupport
import Testing
import ThumbnailKit
import ThumbnailServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `thumbnailer serve`'s operations end to end: health and readiness, the metrics, the
/// access log on standard output, the drain at SIGTERM, configuration by environment.
/// The server, the origin and the signed paths are ServeCommandTests'.
@Suite final class ServeOperationsTests: Sendable {
    let serve: ServeCommandTests
    static let needsStore = WarmShardStoreTests.needsStore

    init() throws {
        serve = try ServeCommandTests()
    }

    /// The lines of standard output after the address line.
    static func accessLines(_ output: String) -> [String] {
        Array(output.split(separator: "\n").dropFirst().map(String.init))
    }

    static func text(_ response: TestHTTPClient.Response) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test func answersHealthAndReadinessUntilTheCacheDirectoryGoes() async throws {
        let server = try await serve.startServer()
        let health = try await server.get("/healthz")
        #expect(health.status == 200 && Self.text(health) == "ok\n")
        let ready = try await server.get("/readyz")
        #expect(ready.status == 200 && Self.text(ready) == "ready\n")
        #expect(try await server.get("/healthz", method: "HEAD").status == 200)

        try FileManager.default.removeItem(atPath: serve.temporary.path("cache"))
        let gone = try await server.get("/readyz")
        #expect(gone.status == 503)
        #expect(Self.text(gone) == "not ready: disk cache\n")
        #expect(try await server.get("/healthz").status == 200)
        #expect(try await server.stop().status == 0)
    }

    @Test(needsStore, .timeLimit(.minutes(3)))
    func isNotReadyWhileTheStoreIsDown() async throws {
        let store = try await S3TestStore()
        let location = "s3://\(try await store.makeBucket())/serve"
        let server = try await serve.startServer(["--private-addresses", "--store", location],
                                                 environment: ServeCommandTests.environment.merging(store.environment) { $1 })
        #expect(try await server.get("/readyz").status == 200)
        try await store.stop()
        let down = try await server.get("/readyz")
        #expect(down.status == 503)
        #expect(Self.text(down) == "not ready: store\n")
        try await store.restart()
        #expect(try await server.get("/readyz").status == 200)
        #expect(try await server.stop().status == 0)
    }

    @Test func countsRequestsByStatusAndShowsFetchedBytesAndPeakMemory() async throws {
        let server = try await serve.startServer()
        #expect(try await server.get(serve.path("/portrait.jpg")).status == 200)
        #expect(try await server.get(serve.path("/portrait.jpg")).status == 200)
        #expect(try await server.get(serve.path("/missing.jpg")).status == 404)
        #expect(try await server.get("/x/256/fit").status == 400)

        let scrape = try await server.get("/metrics")
        #expect(scrape.status == 200)
        #expect(scrape.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        let metrics = Self.text(scrape)
        let lines = metrics.split(separator: "\n").map(String.init)
        #expect(lines.contains("# TYPE thumbnailer_requests_total counter"), "\(metrics)")
        #expect(lines.contains("thumbnailer_requests_total{status=\"200\"} 2"), "\(metrics)")
        #expect(lines.contains("thumbnailer_requests_total{status=\"404\"} 1"), "\(metrics)")
        #expect(lines.contains("thumbnailer_requests_total{status=\"400\"} 1"), "\(metrics)")
        let portraitBytes = try Fixtures.bytes(ofTestImage: ServeCommandTests.portrait).count
        #expect(lines.contains("thumbnailer_fetched_bytes_total \(portraitBytes)"), "\(metrics)")
        let peak = lines.first { $0.hasPrefix("thumbnailer_peak_rss_bytes ") }.flatMap { Double($0.split(separator: " ")[1]) }
        #expect((peak ?? 0) > 4_000_000, "\(metrics)")  // a Swift process with a decoded photo behind it: megabytes, not 0

        // The scrape itself was a 200 by the time of the next.
        let again = Self.text(try await server.get("/metrics")).split(separator: "\n")
        #expect(again.contains("thumbnailer_requests_total{status=\"200\"} 3"))
        #expect(try await server.stop().status == 0)
    }

    @Test func logsOneJSONLinePerRequestOnStandardOutput() async throws {
        let server = try await serve.startServer()
        // The first request is held at the origin for at least 100 ms: its duration cannot be less.
        let gate = ResponseGate()
        let held = try await requestHeldAtTheOrigin(by: gate, on: server)
        try await Task.sleep(for: .milliseconds(100))
        gate.open()
        let first = try await held.value
        #expect(first.status == 200)
        #expect(try await server.get(serve.path("/missing.jpg")).status == 404)
        #expect(try await server.get("/healthz", method: "HEAD").status == 200)
        #expect(try await server.get("/" + String(repeating: "a", count: 2000)).status == 400)
        let outcome = try await server.stop()
        #expect(outcome.status == 0)
        #expect(outcome.standardOutput.hasPrefix("listening on http://127.0.0.1:"))

        let records = try Self.accessLines(outcome.standardOutput).map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
        #expect(records.count == 4, "\(outcome.standardOutput)")
        guard records.count == 4 else { return }
        #expect(records.map { $0["status"] as? Int } == [200, 404, 200, 400])
        #expect(records.map { $0["method"] as? String } == ["GET", "GET", "HEAD", "GET"])
        #expect(records[0]["path"] as? String == serve.path("/slow.jpg"))
        #expect(records[0]["bytes"] as? Int == first.body.count)
        #expect((records[0]["duration_ms"] as? Double ?? 0) >= 100, "\(records[0])")
        #expect(records[2]["bytes"] as? Int == 0)
        #expect((records[3]["path"] as? String)?.utf8.count == 512)
        for record in records {
            #expect((record["duration_ms"] as? Double).map { $0 >= 0 } == true, "\(record)")
            #expect((record["time"] as? String)?.hasSuffix("Z") == true, "\(record)")
        }
    }

    @Test func writesNoAccessLogWhenAskedNotTo() async throws {
        let server = try await serve.startServer(["--private-addresses", "--no-access-log"])
        #expect(try await server.get(serve.path("/portrait.jpg")).status == 200)
        let outcome = try await server.stop()
        #expect(outcome.status == 0)
        #expect(Self.accessLines(outcome.standardOutput).isEmpty, "\(outcome.standardOutput)")
    }

    /// A request whose origin answers only when `gate` opens, started in the background,
    /// and returned once the origin has it.
    func requestHeldAtTheOrigin(by gate: ResponseGate, on server: ServeCommandTests.Server) async throws -> Task<TestHTTPClient.Response, any Error> {
        var held = TestHTTPServer.Behavior(body: try Fixtures.bytes(ofTestImage: ServeCommandTests.portrait))
        held.gate = gate
        serve.origin.route("/slow.jpg", held)
        let slow = serve.path("/slow.jpg")
        let request = Task { try await server.get(slow) }
        #expect(try await eventually { self.serve.origin.requestCount("/slow.jpg") == 1 })
        return request
    }

    @Test func drainsARequestInFlightAtSIGTERMAndRefusesNewConnections() async throws {
        let server = try await serve.startServer(["--private-addresses", "--drain-timeout", "120"])
        let gate = ResponseGate()
        let request = try await requestHeldAtTheOrigin(by: gate, on: server)

        server.process.signal(SIGTERM, awaitingDelivery: true)
        let refused = try await eventually {
            (try? TestHTTPClient.request(port: server.port, path: "/healthz")) == nil
        }
        #expect(refused, "a new connection was still answered after SIGTERM")
        gate.open()
        let response = try await request.value
        #expect(response.status == 200)
        #expect(try await ThumbnailDecoder(size: .original).decode(response.body).height == 256)
        let outcome = try await runBlocking { [process = server.process] in process.wait(within: .init(duration: .seconds(60))) }
        #expect(outcome.status == 0, "\(outcome.summary)")
    }

    @Test func exitsAfterTheDrainTimeoutWithARequestStillInFlight() async throws {
        // The origin's stall would end the request after --low-speed-time: far later than the drain.
        let server = try await serve.startServer(["--private-addresses", "--drain-timeout", "1", "--low-speed-time", "600", "--retries", "1"])
        let gate = ResponseGate()
        defer { gate.open() }
        let request = try await requestHeldAtTheOrigin(by: gate, on: server)

        server.process.signal(SIGTERM, awaitingDelivery: true)
        let outcome = try await runBlocking { [process = server.process] in process.wait(within: .init(duration: .seconds(60))) }
        #expect(outcome.status == 0, "\(outcome.summary)")
        #expect(outcome.limitExceeded == nil, "\(outcome.summary)")
        #expect((try? await request.value)?.status != 200)
    }

    @Test func takesOptionsFromTheEnvironmentAndTheCommandLineFirst() async throws {
        // THUMBNAILER_INSECURE_UNSIGNED takes effect: no key, an unsigned URL answered.
        let unsigned = try await serve.startServer(["--private-addresses"], environment: ["THUMBNAILER_INSECURE_UNSIGNED": "1"])
        #expect(try await unsigned.get(serve.path("/portrait.jpg", signing: .unsigned)).status == 200)
        #expect(try await unsigned.stop().status == 0)

        // THUMBNAILER_PORT is read, and --port wins over it.
        let cache = ["--cache-dir", serve.temporary.path("cache")]
        let badPort = try await ChildProcess.run(["serve"] + cache, environment: ["THUMBNAILER_PORT": "70000", "THUMBNAILER_INSECURE_UNSIGNED": "yes"],
                                                 limits: .init(duration: .seconds(60)))
        #expect(badPort.status == 64, "\(badPort.summary)")
        #expect(badPort.standardError.contains("--port must be between 0 and 65535"), "\(badPort.summary)")
        let overridden = try await ServeProcess.start(cache, environment: ["THUMBNAILER_PORT": "70000", "THUMBNAILER_INSECURE_UNSIGNED": "true"])
        #expect(try await overridden.stop().status == 0)

        // A flag's variable at 0 leaves it off; one that is no yes or no is refused, naming it.
        let off = try await ChildProcess.run(["serve", "--port", "0"] + cache, environment: ["THUMBNAILER_INSECURE_UNSIGNED": "0", "THUMBNAILER_KEY": ""],
                                             limits: .init(duration: .seconds(60)))
        #expect(off.status == 64 && off.standardError.contains("THUMBNAILER_KEY"), "\(off.summary)")
        let unclear = try await ChildProcess.run(["serve", "--port", "0"] + cache, environment: ["THUMBNAILER_INSECURE_UNSIGNED": "maybe"],
                                                 limits: .init(duration: .seconds(60)))
        #expect(unclear.status == 64 && unclear.standardError.contains("THUMBNAILER_INSECURE_UNSIGNED must be"), "\(unclear.summary)")

        // A repeatable option's variable is a list: each pattern reaches --allow-source.
        let patterns = try await ChildProcess.run(["serve", "--port", "0", "--insecure-unsigned"] + cache,
                                                  environment: ["THUMBNAILER_ALLOW_SOURCE": "*.example.com,example.org/images"],
                                                  limits: .init(duration: .seconds(60)))
        #expect(patterns.status == 64 && patterns.standardError.contains("\"example.org/images\""), "\(patterns.summary)")
    }
}
