import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import Testing

/// The loopback server the pipeline tests will use does what they need,
/// checked with URLSession as the client, or with a plain socket where the
/// client must stop reading.
@Suite final class TestHTTPServerTests {
    let server: TestHTTPServer
    let session = URLSession(configuration: .ephemeral)

    init() throws {
        server = try TestHTTPServer()
    }

    deinit {
        server.stop()
    }

    /// A raw connection that asked for `path` and has read the head and `bytes` of the body.
    private func rawConnection(to path: String, afterReading bytes: Int) async throws -> RawHTTPConnection {
        let port = server.port
        return try await runBlocking {
            let connection = try RawHTTPConnection(port: port, path: path)
            _ = try connection.readHead()
            try connection.skip(bytes)
            return connection
        }
    }

    private func get(_ path: String, headers: [String: String] = [:]) async throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: URL(string: server.url(path))!)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        return (data, response as! HTTPURLResponse)
    }

    @Test func servesBytesAndCountsRequestsPerPath() async throws {
        server.route("/a.jpg", .init(body: Array("hello".utf8)))
        let (data, response) = try await get("/a.jpg")
        _ = try await get("/a.jpg")

        #expect(response.statusCode == 200 && String(decoding: data, as: UTF8.self) == "hello")
        #expect(server.requestCount("/a.jpg") == 2)
        #expect(try await get("/missing").1.statusCode == 404)
    }

    @Test func queuedBehavioursPlayInTurnThenTheLastRepeats() async throws {
        server.route("/flaky", .init(status: 503, headers: ["Retry-After": "1"]), .init(status: 503), .init(body: [1, 2, 3]))
        let statuses = try await [get("/flaky").1.statusCode, get("/flaky").1.statusCode,
                                  get("/flaky").1.statusCode, get("/flaky").1.statusCode]
        #expect(statuses == [503, 503, 200, 200])
    }

    @Test func anETagTurnsARevalidationInto304WithoutABody() async throws {
        var behavior = TestHTTPServer.Behavior(body: Array(repeating: 7, count: 1000))
        behavior.etag = "\"v1\""
        server.route("/photo", behavior)
        let (data, response) = try await get("/photo", headers: ["If-None-Match": "\"v1\""])
        #expect(response.statusCode == 304 && data.isEmpty)
        #expect(try await get("/photo").0.count == 1000)
    }

    @Test func aDroppedBodyFailsTheTransfer() async throws {
        var behavior = TestHTTPServer.Behavior(body: Array(repeating: 1, count: 100_000))
        behavior.dropAfter = 10_000
        server.route("/cut", behavior)
        await #expect(throws: (any Error).self) { _ = try await self.get("/cut") }
        #expect(server.requestCount("/cut") >= 1)
    }

    @Test func aLieAboutTheLengthIsWhatTheClientSees() async throws {
        var behavior = TestHTTPServer.Behavior(body: [1, 2, 3])
        behavior.claimedLength = 200 << 20
        behavior.dropAfter = 3
        server.route("/huge", behavior)
        // Per-task delegates do not exist in Linux Foundation: the session gets the delegate.
        let delegate = HeadersOnly()
        let streaming = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { streaming.invalidateAndCancel() }
        streaming.dataTask(with: URL(string: server.url("/huge"))!).resume()
        let expected = await delegate.expectedLength()
        #expect(expected == 200 << 20)
    }

    @Test func aRedirectSendsItsLocation() async throws {
        server.route("/old", .redirect(to: server.url("/new")))
        server.route("/new", .init(body: Array("moved here".utf8)))
        let (data, response) = try await get("/old")
        #expect(response.statusCode == 200 && String(decoding: data, as: UTF8.self) == "moved here")
        #expect(server.requestCount("/old") == 1 && server.requestCount("/new") == 1)
    }

    @Test func aGeneratedBodyIsSentInFullAndCounted() async throws {
        server.route("/generated", .generated(length: 3_000_000))
        let (data, response) = try await get("/generated")
        #expect(response.statusCode == 200 && data.count == 3_000_000)
        #expect(response.expectedContentLength == 3_000_000)
        #expect(try await eventually { self.server.bodiesBeingSent("/generated") == 0 })
        #expect(server.sentBodyBytes("/generated") == 3_000_000)
    }

    @Test(arguments: [TestHTTPServer.EndlessBody.chunked, .closeDelimited])
    func anEndlessBodyGoesOnUntilTheClientHangsUp(framing: TestHTTPServer.EndlessBody) async throws {
        server.route("/endless", .endless(framing))
        let port = server.port
        let head = try await runBlocking {
            let connection = try RawHTTPConnection(port: port, path: "/endless")
            defer { connection.close() }
            let head = try connection.readHead()
            try connection.skip(4 << 20)
            return head
        }
        #expect(!head.lowercased().contains("content-length"))
        switch framing {
        case .chunked: #expect(head.contains("Transfer-Encoding: chunked"))
        case .closeDelimited: #expect(head.contains("Connection: close"))
        }
        #expect(try await eventually { self.server.bodiesBeingSent("/endless") == 0 }, "the send ended when the client hung up")
        let sent = server.sentBodyBytes("/endless")
        // At least the 4 MiB read, less chunk framing; far less than the 1 GiB an unstopped send reaches.
        #expect(sent > 4_000_000 && sent < 64 << 20, "\(sent) bytes sent for 4 MiB read")
        #expect(server.earlyCloseCount("/endless") == 1)
    }

    @Test func stopEndsAnEndlessBodyTheClientStoppedReading() async throws {
        server.route("/endless", .endless(.chunked))
        // Open, no longer read: the server's send blocks.
        let connection = try await rawConnection(to: "/endless", afterReading: 64 << 10)
        defer { connection.close() }
        #expect(try await eventually { self.server.bodiesBeingSent("/endless") == 1 })
        server.stop()
        #expect(try await eventually { self.server.bodiesBeingSent("/endless") == 0 })
    }

    @Test func stopEndsATricklesPause() async throws {
        var trickle = TestHTTPServer.Behavior(body: [1, 2, 3])
        trickle.trickle = (chunk: 1, pause: .seconds(600))
        server.route("/trickle", trickle)
        let connection = try await rawConnection(to: "/trickle", afterReading: 1)
        defer { connection.close() }
        server.stop()
        #expect(try await eventually(within: .seconds(30)) { self.server.bodiesBeingSent("/trickle") == 0 },
                "the ten-minute pause ended with the server")
    }

    @Test func aHeldBodyStopsPartWayAndNoticesAClientThatHangsUp() async throws {
        var held = TestHTTPServer.Behavior(body: Array(repeating: 5, count: 10_000))
        held.holdAfter = (4_000, ResponseGate())  // never opened
        server.route("/held", held)
        let connection = try await rawConnection(to: "/held", afterReading: 4_000)
        #expect(try await eventually { self.server.heldResponses == 1 })
        let more = try await runBlocking { try connection.waitForBytes(timeoutMilliseconds: 200) }
        #expect(more == .nothingYet, "not a byte past the first 4000 while held")
        #expect(server.earlyCloseCount("/held") == 0)
        connection.close()
        #expect(try await eventually { self.server.earlyCloseCount("/held") == 1 }, "noticed while the gate is still closed")
        #expect(server.heldResponses == 0 && server.sentBodyBytes("/held") == 4_000)
    }

    @Test func heldResponsesGoOneAtATimeAndTheirPeakIsCounted() async throws {
        let gate = ResponseGate()
        var behavior = TestHTTPServer.Behavior(body: [1, 2, 3])
        behavior.gate = gate
        server.route("/gated", behavior)
        let (session, url) = (session, URL(string: server.url("/gated"))!)
        let requests = (0..<3).map { _ in Task { try await (session.data(from: url).1 as? HTTPURLResponse)?.statusCode } }
        #expect(try await eventually { self.server.heldResponses == 3 })
        gate.admit()
        #expect(try await eventually { self.server.heldResponses == 2 })
        gate.open()
        for request in requests { #expect(try await request.value == 200) }
        #expect(server.heldResponses == 0 && server.peakHeldResponses == 3)
    }

    @Test func headersNeverSentKeepsTheConnectionSilentUntilStop() async throws {
        server.route("/silent", .headersNeverSent)
        let port = server.port
        let connection = try await runBlocking { try RawHTTPConnection(port: port, path: "/silent") }
        defer { connection.close() }
        #expect(try await eventually { self.server.requestCount("/silent") == 1 })
        #expect(server.acceptedConnections == 1)
        let before = try await runBlocking { try connection.waitForBytes(timeoutMilliseconds: 200) }
        #expect(before == .nothingYet, "not a byte while the server runs")
        server.stop()
        let after = try await runBlocking { try connection.waitForBytes(timeoutMilliseconds: 30_000) }
        #expect(after == .closed, "closed, still without a byte, when the server stops")
    }

    /// A child process another test starts holds none of the server's or the client's sockets:
    /// one that did kept a connection open after its test closed it, for as long as it ran (a
    /// client's hang-up then reached `serve` only when that other test's child exited).
    @Test func childProcessesInheritNoneOfTheServersOrTheClientsSockets() async throws {
        let client = try TestHTTPClient.connect(port: Int(server.port))
        defer { close(client) }
        #expect(try await eventually { self.server.acceptedConnections == 1 })
        var status = stat()
        #expect(fstat(client, &status) == 0)
        // The listener and the accepted connection: the loopback sockets on the server's port.
        let ours = try socketInodes(onLocalPort: server.port).union([UInt64(status.st_ino)])
        #expect(ours.count == 3, "listener, accepted connection and client: \(ours)")
        let listing = try await runBlocking {
            try ChildProcess.run(["-c", "ls -l /proc/self/fd/"], executable: "/bin/sh")
        }
        #expect(listing.status == 0, "\(listing.summary)")
        let inherited = Set(listing.standardOutput.split(separator: "\n").compactMap { line -> UInt64? in
            guard let start = line.range(of: "socket:[")?.upperBound else { return nil }
            return UInt64(line[start...].prefix { $0.isNumber })
        })
        #expect(inherited.isDisjoint(with: ours), "the child holds \(inherited.intersection(ours))")
    }

    /// The inodes of this process's IPv4 sockets whose local port is `port`: the server's
    /// listener and the connections it accepted (its descriptors, from `/proc/self/fd`).
    private func socketInodes(onLocalPort port: UInt16) throws -> Set<UInt64> {
        var inodes: Set<UInt64> = []
        for name in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            guard let descriptor = Int32(name) else { continue }
            var address = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) == 0 }
            }
            var status = stat()
            guard named, address.sin_family == sa_family_t(AF_INET), UInt16(bigEndian: address.sin_port) == port,
                  fstat(descriptor, &status) == 0 else { continue }
            inodes.insert(UInt64(status.st_ino))
        }
        return inodes
    }
}

/// Cancels a transfer as soon as the response headers arrive and reports the announced length.
final class HeadersOnly: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable is safe: `continuation` is written once under `lock`
    // before the task starts delivering and read under the same lock.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Int64, Never>?
    private var received: Int64?

    func expectedLength() async -> Int64 {
        await withCheckedContinuation { continuation in
            let ready = lock.withLock { () -> Int64? in
                if let received { return received }
                self.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        completionHandler(.cancel)
        let waiting = lock.withLock { () -> CheckedContinuation<Int64, Never>? in
            received = response.expectedContentLength
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(returning: response.expectedContentLength)
    }
}

/// A blocking HTTP/1.1 client on a plain socket, for what URLSession cannot
/// do: stop reading a body while keeping the connection open. Use it off the
/// cooperative pool (``runBlocking(_:)``).
struct RawHTTPConnection: Sendable {
    enum Wait: Equatable {
        case bytes
        case nothingYet
        case closed
    }

    let descriptor: Int32

    /// Connects to 127.0.0.1:`port` and sends `GET path`.
    init(port: UInt16, path: String) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard connected == 0, send(descriptor, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else {
            Glibc.close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    /// Reads the response head, a byte at a time so no body byte is consumed.
    func readHead() throws -> String {
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual("\r\n\r\n".utf8) {
            guard recv(descriptor, &byte, 1, 0) == 1 else { throw POSIXError(.ECONNRESET) }
            head.append(byte)
        }
        return String(decoding: head, as: UTF8.self)
    }

    /// Reads and discards `count` bytes.
    func skip(_ count: Int) throws {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var left = count
        while left > 0 {
            let got = recv(descriptor, &buffer, min(left, buffer.count), 0)
            guard got > 0 else { throw POSIXError(.ECONNRESET) }
            left -= got
        }
    }

    /// Waits up to `timeoutMilliseconds` for the connection to become readable,
    /// and says whether bytes came, the server closed it, or nothing happened.
    func waitForBytes(timeoutMilliseconds: Int32) throws -> Wait {
        var descriptors = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptors, 1, timeoutMilliseconds) > 0 else { return .nothingYet }
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, Int32(MSG_PEEK)) > 0 ? .bytes : .closed
    }

    func close() {
        Glibc.close(descriptor)
    }
}
