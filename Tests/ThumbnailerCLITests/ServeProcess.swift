import TestSupport

extension ServeCommandTests {
    /// Starts `thumbnailer serve` with `arguments` and waits for its first line, which must
    /// be the address; a server that prints anything else first is killed and the start fails.
    static func startServe(_ arguments: [String], environment: [String: String]) async throws -> Server {
        let process = try ChildProcess.start(["serve"] + arguments, environment: environment)
        let prefix = "listening on http://127.0.0.1:"
        let printed = try await eventually { process.standardOutputSoFar.contains("\n") }
        let line = process.standardOutputSoFar.split(separator: "\n").first.map(String.init) ?? ""
        guard printed, line.hasPrefix(prefix), let port = Int(line.dropFirst(prefix.count)) else {
            let outcome = process.kill()
            throw TestHTTPClient.Failure(description: "no address line: \(line) \(outcome.summary)")
        }
        return Server(process: process, port: port)
    }
}
