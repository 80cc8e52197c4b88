import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A running `thumbnailer serve` child on a free loopback port, for the suites
/// that test it end to end.
struct ServeProcess: Sendable {
    let process: ChildProcess.Running
    let port: Int

    /// Starts `serve --port 0` with `options` and waits for its address line. Without a
    /// `--deadline` among them, with none: a test that holds a request at its origin would
    /// otherwise get 504 once a loaded machine has kept it waiting 10 s.
    static func start(_ options: [String], environment: [String: String]) async throws -> ServeProcess {
        let deadline = options.contains("--deadline") ? [] : ["--deadline", "unlimited"]
        let process = try ChildProcess.start(["serve", "--port", "0"] + deadline + options, environment: environment)
        let prefix = "listening on http://127.0.0.1:"
        let printed = try await eventually { process.standardOutputSoFar.contains("\n") }
        let line = process.standardOutputSoFar.split(separator: "\n").first.map(String.init) ?? ""
        guard printed, line.hasPrefix(prefix), let port = Int(line.dropFirst(prefix.count)) else {
            let outcome = process.kill()
            throw TestHTTPClient.Failure(description: "no address line: \(line) \(outcome.summary)")
        }
        return ServeProcess(process: process, port: port)
    }

    func get(_ path: String, method: String = "GET", headers: [String: String] = [:]) async throws -> TestHTTPClient.Response {
        try await runBlocking { [port] in try TestHTTPClient.request(method, port: port, path: path, headers: headers) }
    }

    /// SIGTERM, then the exit (killed after 60 s).
    func stop() async throws -> ChildProcess.Outcome {
        process.signal(SIGTERM)
        return try await runBlocking { [process] in process.wait(within: .init(duration: .seconds(60))) }
    }

    /// The server's peak resident memory so far (`VmHWM`), in bytes; 0 where there is no `/proc`.
    var peakResidentBytes: Int {
        ChildProcess.statusField("VmHWM:", ofProcess: process.pid) ?? 0
    }
}

extension TestHTTPServer {
    /// A loopback origin serving the suites' portrait (1000×1502) at /portrait.jpg.
    static func servingPortrait() throws -> TestHTTPServer {
        let origin = try TestHTTPServer()
        origin.route("/portrait.jpg", .init(body: try Fixtures.bytes(ofTestImage: ServeCommandTests.portrait)))
        return origin
    }
}
