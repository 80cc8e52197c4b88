import Foundation
import Synchronization
import TestSupport
import Testing
import ThumbnailKit
import ThumbnailServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `thumbnailer serve` (the built binary) against clients that attack it over raw
/// sockets: a thousand idle connections, slowloris headers, a 64 KiB URL, a 1 MiB
/// header block, pipelined garbage. While each goes on a normal client still gets a
/// thumbnail rendered for it, a refused request is answered 4xx or hung up on, and
/// the server's peak resident memory (its `VmHWM`) stays within 64 MiB. One at a
/// time (and apart from the other suites, see scripts/test.sh): a server that falls
/// behind a flood holds more of it.
@Suite(.serialized) final class ServeHostileClientTests: Sendable {
    let origin: TestHTTPServer
    let temporary: TemporaryDirectory
    /// The most the server may ever have had resident.
    static let memoryCeiling = 64 << 20

    init() throws {
        origin = try TestHTTPServer.servingPortrait()
        temporary = try TemporaryDirectory()
    }

    deinit { origin.stop() }

    func startServer(_ options: [String] = []) async throws -> ServeProcess {
        try await ServeProcess.start(["--cache-dir", temporary.path("cache"), "--private-addresses"] + options,
                                     environment: ServeCommandTests.environment)
    }

    /// The signed path of the portrait fitted into `box`, by `source` (the portrait's URL unless given).
    func thumbnailPath(_ box: Int, source: String? = nil) -> String {
        ThumbnailURL(size: .fit(box), mode: .fit, source: source ?? origin.url("/portrait.jpg"))
            .path(signing: ServeCommandTests.signing)
    }

    /// A normal client asks for the portrait in a 200 px box, which no other request asks for, so the
    /// server fetches and renders it now; expects it gets the thumbnail, exactly fitted.
    func expectANormalClientServed(by server: ServeProcess, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let response = try await server.get(thumbnailPath(200))
        #expect(response.status == 200, sourceLocation: sourceLocation)
        guard response.status == 200 else { return }
        let thumbnail = try await ThumbnailDecoder(size: .original).decode(response.body)
        // The portrait is 1000×1502: 133×200 in the box.
        #expect((thumbnail.width, thumbnail.height) == (133, 200), sourceLocation: sourceLocation)
    }

    /// Expects the server's peak resident memory so far within the ceiling, then that it stops with status 0.
    func expectLeanThenStops(_ server: ServeProcess, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(server.peakResidentBytes <= Self.memoryCeiling, "peak \(server.peakResidentBytes >> 20) MiB",
                sourceLocation: sourceLocation)
        let outcome = try await server.stop()
        #expect(outcome.status == 0, "\(outcome.summary)", sourceLocation: sourceLocation)
    }

    // MARK: Idle connections

    /// Whether this process may hold a thousand idle connections and the server beside them:
    /// the soft limit on open files raised to 4,096 (or the hard limit) if lower; the server, a child, inherits it.
    static let canHoldAThousandConnections: Bool = {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return false }
        let wanted: rlim_t = 4096
        if limit.rlim_cur < wanted {
            limit.rlim_cur = min(wanted, limit.rlim_max)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return limit.rlim_cur >= 2048
    }()

    /// How many files `pid` has open.
    static func openDescriptors(of pid: pid_t) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }

    @Test(.enabled(if: ServeHostileClientTests.canHoldAThousandConnections, "needs a limit of 2,048 open files (ulimit -n)"))
    func aThousandIdleConnectionsLeaveTheServerAnsweringOthers() async throws {
        let server = try await startServer()
        let before = Self.openDescriptors(of: server.process.pid)
        let idle = try await runBlocking { [port = server.port] in try (0..<1000).map { _ in try TestSocket(port: port) } }
        // Accepted by the server, not only queued by the kernel: it holds a descriptor for each.
        let accepted = try await eventually(within: .seconds(30)) { Self.openDescriptors(of: server.process.pid) >= before + 1000 }
        #expect(accepted, "the server holds \(Self.openDescriptors(of: server.process.pid) - before) of 1000 connections")

        try await expectANormalClientServed(by: server)
        // All still open: the server refused none to make room.
        #expect(idle.filter { $0.drainIsClosed() }.isEmpty)
        try await expectLeanThenStops(server)
        withExtendedLifetime(idle) {}
    }

    // MARK: Slowloris

    /// Connections that each start a request and then, every 50 ms, send one more byte of a
    /// header that never ends, until the server closes them (or `patience` passes).
    final class Slowloris: Sendable {
        private let connections: [TestSocket]
        private let stopped = Atomic<Bool>(false)

        init(port: Int, count: Int) throws {
            connections = try (0..<count).map { index in
                let connection = try TestSocket(port: port)
                connection.send(Array("GET /slow/\(index) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8))
                return connection
            }
        }

        /// Drips until every connection is closed by the server or `patience` passes;
        /// how many the server closed.
        func drip(patience: Duration) -> Int {
            let deadline = ContinuousClock.now + patience
            var open = connections
            while !open.isEmpty, ContinuousClock.now < deadline, !stopped.load(ordering: .relaxed) {
                open.removeAll { !$0.send([UInt8(ascii: "a")]) || $0.drainIsClosed() }
                var pause = timespec(tv_sec: 0, tv_nsec: 50_000_000)
                nanosleep(&pause, nil)
            }
            return connections.count - open.count
        }

        func stop() { stopped.store(true, ordering: .relaxed) }
    }

    @Test func slowlorisHeadersAreCutOffByTheIdleTimeoutWhileOthersAreServed() async throws {
        let server = try await startServer(["--idle-timeout", "2"])
        let slowloris = try await runBlocking { [port = server.port] in try Slowloris(port: port, count: 200) }
        async let closed = runBlocking { slowloris.drip(patience: .seconds(25)) }

        try await expectANormalClientServed(by: server)
        // A head still coming is no activity: every one of them is closed 2 s after it connected.
        #expect(try await closed == 200)
        try await expectLeanThenStops(server)
    }

    // MARK: Oversized requests

    /// Sends `request` on a connection of its own and reads to the end: the server's
    /// response, or `nil` when it hung up without one (it may, mid-upload, when it
    /// refuses the request before reading all of it).
    static func exchange(port: Int, _ request: [UInt8]) throws -> TestHTTPClient.Response? {
        let connection = try TestSocket(port: port)
        connection.send(request)
        let answer = try connection.receiveToEnd()
        return answer.isEmpty ? nil : try TestHTTPClient.parse(answer)
    }

    /// A refusal an oversized request may get: 400, 414 or 431, or a closed connection (`nil`).
    static func isRefusal(_ response: TestHTTPClient.Response?) -> Bool {
        response.map { [400, 414, 431].contains($0.status) } ?? true
    }

    @Test func a64KiBURLIsRefusedWithoutAFetchAndTheServerGoesOn() async throws {
        let server = try await startServer()
        // Signed, and well formed but for its length: refused for what it is, not for a bad signature.
        let long = thumbnailPath(256, source: origin.url("/portrait.jpg?" + String(repeating: "a", count: 48 * 1024)))
        #expect(long.utf8.count >= 64 * 1024)
        let request = Array("GET \(long) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        let response = try await runBlocking { [port = server.port] in try Self.exchange(port: port, request) }
        #expect(Self.isRefusal(response), "\(response.map { "\($0.status)" } ?? "closed")")
        #expect(origin.receivedRequests.isEmpty)

        try await expectANormalClientServed(by: server)
        try await expectLeanThenStops(server)
    }

    @Test func aMebibyteOfHeadersIsRefusedWithoutAFetchAndTheServerGoesOn() async throws {
        let server = try await startServer()
        let head = "GET \(thumbnailPath(256)) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        // A thousand headers of a kibibyte each, and one header of a mebibyte.
        let many = (0..<1024).map { "X-Padding-\($0): " + String(repeating: "b", count: 1000) + "\r\n" }.joined()
        let one = "X-Padding: " + String(repeating: "c", count: 1 << 20) + "\r\n"
        for block in [many, one] {
            let request = Array((head + block + "\r\n").utf8)
            let response = try await runBlocking { [port = server.port] in try Self.exchange(port: port, request) }
            #expect(Self.isRefusal(response), "\(response.map { "\($0.status)" } ?? "closed")")
        }
        #expect(origin.receivedRequests.isEmpty)

        try await expectANormalClientServed(by: server)
        try await expectLeanThenStops(server)
    }

    // MARK: Garbage

    /// Clients sending random bytes, up to 64 KiB at a time, each connecting again when
    /// the server hangs up, until stopped.
    final class GarbageSenders: Sendable {
        private let stopped = Atomic<Bool>(false)
        private let hangUps = Atomic<Int>(0)

        /// How many of their connections the server has hung up on so far.
        var hungUpOn: Int { hangUps.load(ordering: .relaxed) }

        func run(port: Int, clients: Int) throws {
            let garbage = (0..<64 * 1024).map { _ in UInt8.random(in: 0...255) }
            var connections = try (0..<clients).map { _ in try TestSocket(port: port) }
            while !stopped.load(ordering: .relaxed) {
                for index in connections.indices {
                    // Without waiting: a server that stops reading a connection it refused must not stall the others.
                    if !connections[index].sendWithoutWaiting(garbage) || connections[index].drainIsClosed() {
                        connections[index] = try TestSocket(port: port)
                        hangUps.add(1, ordering: .relaxed)
                    }
                }
            }
        }

        func stop() { stopped.store(true, ordering: .relaxed) }
    }

    /// Status codes of the responses in `bytes`, one after the other (each body skipped by its Content-Length).
    static func statuses(in bytes: [UInt8]) throws -> [Int] {
        var statuses: [Int] = []
        var rest = bytes[...]
        while !rest.isEmpty {
            let response = try TestHTTPClient.parse(Array(rest))
            statuses.append(response.status)
            let length = Int(response.headers["content-length"] ?? "") ?? response.body.count
            rest = rest.suffix(response.body.count).dropFirst(length)
        }
        return statuses
    }

    @Test func pipelinedGarbageIsHungUpOnWhileOthersAreServed() async throws {
        let server = try await startServer()
        let senders = GarbageSenders()
        async let sending: Void = runBlocking { [port = server.port] in try senders.run(port: port, clients: 8) }
        // On every way out, a thrown error's too: the task is awaited when the test returns.
        defer { senders.stop() }
        // The garbage is refused, connection after connection, while the rest goes on.
        #expect(try await eventually(within: .seconds(30)) { senders.hungUpOn >= 16 }, "\(senders.hungUpOn) hang-ups")

        // Two good requests pipelined, then garbage: both are answered, then the garbage gets a 400 or a hang-up.
        let pipelined = Array(("GET \(thumbnailPath(64)) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            + "GET \(thumbnailPath(64)) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").utf8)
            + (0..<4096).map { UInt8(truncatingIfNeeded: $0 * 7919) }
        let answered = try await runBlocking { [port = server.port] in
            let connection = try TestSocket(port: port)
            connection.send(pipelined)
            return try Self.statuses(in: try connection.receiveToEnd())
        }
        #expect(answered == [200, 200] || answered == [200, 200, 400], "\(answered)")

        let hangUpsBefore = senders.hungUpOn
        try await expectANormalClientServed(by: server)
        #expect(senders.hungUpOn > hangUpsBefore, "no garbage refused while the thumbnail was made")
        senders.stop()
        try await sending
        try await expectLeanThenStops(server)
    }
}
