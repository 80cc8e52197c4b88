import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP/1.1 server on 127.0.0.1 (a free port) for the pipeline
/// tests. Each path has a ``Behavior``: serve bytes, fail with a status,
/// redirect, stall, trickle, hold the body part way until a gate opens, drop
/// the connection mid-body, lie about the length, or send a huge or endless
/// body made as it goes. It counts connections, requests, body bytes sent per
/// path and responses held at a gate at once, and notices clients that hang
/// up early.
/// One thread accepts, one thread serves each connection; `stop()` closes all.
public final class TestHTTPServer: @unchecked Sendable {
    // @unchecked Sendable is safe: every mutable property is read and written
    // only inside `lock.withLock`; `port` and `listener` are set once in init.

    /// What the server does for one path.
    public struct Behavior: Sendable {
        public var status = 200
        public var body: [UInt8] = []
        public var headers: [String: String] = [:]
        /// Wait this long before sending the status line.
        public var headerDelay: Duration = .zero
        /// Wait until this gate opens (or the server stops) before sending the status line.
        public var gate: ResponseGate?
        /// Send this many body bytes, then hold the rest until the gate opens (or the
        /// server stops). A client that hangs up meanwhile is counted at once as an early close.
        public var holdAfter: (bytes: Int, gate: ResponseGate)?
        /// Send the body in pieces of this many bytes, pausing between them.
        public var trickle: (chunk: Int, pause: Duration)?
        /// Close the connection after this many body bytes.
        public var dropAfter: Int?
        /// Announce this Content-Length instead of the body's.
        public var claimedLength: Int?
        /// Answer `If-None-Match` with this ETag by 304 Not Modified.
        public var etag: String?
        /// Answer `If-Modified-Since` with this date by 304 Not Modified.
        public var lastModified: String?
        /// Send no Content-Length: the body ends when the server closes the connection.
        public var omitsContentLength = false
        /// Instead of `body`, a body that never ends, made as it is sent (never held in
        /// memory), until the client stops reading, the server stops, or
        /// ``TestHTTPServer/endlessBodyLimit`` bytes have gone.
        public var endlessBody: EndlessBody?
        /// Instead of `body`, this many bytes made as they are sent (never held in
        /// memory), announced as the Content-Length unless `claimedLength` says otherwise.
        public var generatedBodyLength: Int?
        /// Send `body` with `Transfer-Encoding: chunked` in chunks of this many bytes (the last
        /// may be shorter), so that a client gets it in pieces of known sizes. Not with the
        /// options above that shape or cut the body.
        public var chunkSize: Int?
        /// After the status line, one header line that never ends, made as it is sent, until the
        /// client closes, the server stops, or ``TestHTTPServer/endlessBodyLimit`` bytes have gone.
        public var endlessHeaderLine = false

        public init(status: Int = 200, body: [UInt8] = [], headers: [String: String] = [:]) {
            self.status = status
            self.body = body
            self.headers = headers
        }
    }

    /// How an endless body is framed.
    public enum EndlessBody: Sendable {
        /// No Content-Length and `Connection: close`: the body is whatever comes until the connection closes.
        case closeDelimited
        /// `Transfer-Encoding: chunked`: chunk after chunk, never the last one.
        case chunked
    }

    /// Where an endless body ends all the same, by closing the connection: a
    /// client that reads without a limit then fails its test instead of
    /// exhausting the machine. 1 GiB.
    public static let endlessBodyLimit = 1 << 30

    /// The kernel send buffer of a connection sending a generated or endless
    /// body (Linux doubles it): what the server has sent is then at most this
    /// much ahead of what reached the client's socket, so ``sentBodyBytes(_:)``
    /// measures the client's reading, not the loopback's buffering.
    static let generatedBodySendBuffer: Int32 = 64 << 10

    /// What a client sent.
    public struct Request: Sendable {
        public let method: String
        public let path: String
        public let headers: [String: String]
    }

    public let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var behaviors: [String: [Behavior]] = [:]
    private var requests: [Request] = []
    private var earlyCloses: [String: Int] = [:]
    private var bodyBytesSent: [String: Int] = [:]
    private var bodiesInProgress: [String: Int] = [:]
    private var held = (now: 0, peak: 0)
    private var connectionsAccepted = 0
    private var connections: Set<Int32> = []
    private var stopped = false

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Serves `behavior` for `path`; several calls queue behaviours used in
    /// turn (the last one repeats): e.g. 503, 503, then 200.
    public func route(_ path: String, _ behaviors: Behavior...) {
        route(path, behaviors)
    }

    /// Serves `behaviors` for `path` in turn, the last one repeating.
    public func route(_ path: String, _ behaviors: [Behavior]) {
        precondition(!behaviors.isEmpty, "a route needs a behaviour")
        lock.withLock { self.behaviors[path] = behaviors }
    }

    /// Requests received for `path` so far.
    public func requestCount(_ path: String) -> Int {
        lock.withLock { requests.filter { $0.path == path }.count }
    }

    /// Every request received, in order.
    public var receivedRequests: [Request] { lock.withLock { requests } }

    /// Connections for `path` the client closed before the response was complete.
    public func earlyCloseCount(_ path: String) -> Int {
        lock.withLock { earlyCloses[path, default: 0] }
    }

    /// Connections accepted so far, whether or not a request came on them.
    public var acceptedConnections: Int { lock.withLock { connectionsAccepted } }

    /// Body bytes (without chunk framing) handed to the kernel for `path` so
    /// far, over every response. Updated as they go; once
    /// ``bodiesBeingSent(_:)`` is 0 the count is final.
    public func sentBodyBytes(_ path: String) -> Int {
        lock.withLock { bodyBytesSent[path, default: 0] }
    }

    /// Responses to `path` whose body is still being sent: a send ends when the
    /// body is complete, the client stops reading and closes, a behaviour
    /// drops the connection, or the server stops.
    public func bodiesBeingSent(_ path: String) -> Int {
        lock.withLock { bodiesInProgress[path, default: 0] }
    }

    /// Responses waiting at a gate now, before their status line or part way through their body.
    public var heldResponses: Int { lock.withLock { held.now } }

    /// The most responses that waited at a gate at once so far. When every
    /// response is held until the test lets it go, this is the most requests
    /// the client had in flight at once.
    public var peakHeldResponses: Int { lock.withLock { held.peak } }

    /// Stops listening and ends every open connection.
    ///
    /// Descriptors are shut down under the lock, and the threads that own them
    /// close them only under the same lock: a descriptor closed elsewhere could
    /// already be reused by another socket of this process (a client's, or
    /// another test's server), and shutting that down would break an unrelated
    /// transfer.
    public func stop() {
        lock.withLock {
            guard !stopped else { return }
            stopped = true
            shutdown(listener, Int32(SHUT_RDWR))  // wakes accept(); the accept loop closes it
            for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop() {
        // Closed only here, so accept() never runs on a reused descriptor.
        defer { close(listener) }
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return  // stopped
            }
            // Close-on-exec (the listener's flag is not inherited; accept4 is out of Swift's reach):
            // a child process a test starts must not keep a connection open after this server closed it.
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            let accepted = lock.withLock { () -> Bool in
                guard !stopped else { return false }
                connectionsAccepted += 1
                connections.insert(connection)
                return true
            }
            guard accepted else {
                close(connection)
                return
            }
            let thread = Thread { [self] in
                serve(connection)
                lock.withLock {
                    connections.remove(connection)
                    close(connection)
                }
            }
            thread.start()
        }
    }

    /// Serves requests on one connection until the client or a behaviour closes it.
    private func serve(_ connection: Int32) {
        var buffer: [UInt8] = []
        while let request = readRequest(connection, &buffer) {
            let behavior = lock.withLock { () -> Behavior in
                requests.append(request)
                var queue = behaviors[request.path] ?? [Behavior(status: 404, body: Array("not found".utf8))]
                let next = queue.count > 1 ? queue.removeFirst() : queue[0]
                behaviors[request.path] = queue
                return next
            }
            guard respond(to: request, with: behavior, on: connection) else { return }
        }
    }

    /// Reads one request head; `nil` at end of stream.
    private func readRequest(_ connection: Int32, _ buffer: inout [UInt8]) -> Request? {
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            if let end = buffer.firstRange(of: terminator) {
                let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                buffer.removeSubrange(..<end.upperBound)
                let lines = head.components(separatedBy: "\r\n")
                let requestLine = lines[0].split(separator: " ")
                guard requestLine.count >= 2 else { return nil }
                var headers: [String: String] = [:]
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                return Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers)
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let got = recv(connection, &chunk, chunk.count, 0)
            if got <= 0 { return nil }
            buffer += chunk[..<got]
        }
    }

    /// Sends one response; `false` when the connection must close afterwards.
    private func respond(to request: Request, with behavior: Behavior, on connection: Int32) -> Bool {
        if behavior.headerDelay > .zero { pause(behavior.headerDelay) }
        if let gate = behavior.gate { _ = wait(at: gate, on: connection, noticingHangUp: false) }
        var status = behavior.status
        var body = behavior.body
        let etagMatches = behavior.etag != nil && request.headers["if-none-match"] == behavior.etag
        let dateMatches = behavior.lastModified != nil && request.headers["if-modified-since"] == behavior.lastModified
        let notModified = etagMatches || dateMatches
        if notModified {
            status = 304
            body = []
        }
        let generatedLength = notModified ? nil : behavior.generatedBodyLength
        let endless = notModified ? nil : behavior.endlessBody
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        if behavior.endlessHeaderLine { return sendEndlessHeaderLine(after: head, for: request, on: connection) }
        let chunked = behavior.chunkSize != nil && !notModified
        switch endless {
        case .chunked:
            head += "Transfer-Encoding: chunked\r\n"
        case .closeDelimited:
            head += "Connection: close\r\n"
        case nil where behavior.omitsContentLength:
            head += "Connection: close\r\n"
        case nil where chunked:
            head += "Transfer-Encoding: chunked\r\n"
        case nil:
            head += "Content-Length: \(behavior.claimedLength ?? generatedLength ?? body.count)\r\n"
        }
        if let etag = behavior.etag { head += "ETag: \(etag)\r\n" }
        if let lastModified = behavior.lastModified { head += "Last-Modified: \(lastModified)\r\n" }
        for (name, value) in behavior.headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        if endless != nil || generatedLength != nil {
            var size = Self.generatedBodySendBuffer
            setsockopt(connection, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let headBytes = Array(head.utf8)
        guard send(headBytes[...], on: connection) == headBytes.count else { return recordEarlyClose(request) }
        if request.method == "HEAD" { return true }

        lock.withLock { bodiesInProgress[request.path, default: 0] += 1 }
        defer { lock.withLock { bodiesInProgress[request.path, default: 0] -= 1 } }
        if let endless {
            // It ends only by failing: the client stopped reading, the server stopped, or the limit.
            _ = sendGeneratedBody(length: Self.endlessBodyLimit, chunked: endless == .chunked, for: request, on: connection)
            return recordEarlyClose(request)
        }
        if chunked, let chunkSize = behavior.chunkSize {
            for start in stride(from: 0, to: body.count, by: chunkSize) {
                let piece = body[start..<min(start + chunkSize, body.count)]
                let framed = Self.chunk(piece)
                let sent = send(framed[...], on: connection)
                guard countSent(min(max(sent - Self.chunkPrefix(piece.count).count, 0), piece.count), for: request),
                      sent == framed.count else { return recordEarlyClose(request) }
            }
            let last = Array("0\r\n\r\n".utf8)
            guard send(last[...], on: connection) == last.count else { return recordEarlyClose(request) }
        } else if let generatedLength {
            let length = min(behavior.dropAfter ?? generatedLength, generatedLength)
            guard sendGeneratedBody(length: length, chunked: false, for: request, on: connection) else {
                return recordEarlyClose(request)
            }
        } else {
            let limit = min(behavior.dropAfter ?? body.count, body.count)
            let chunkSize = behavior.trickle?.chunk ?? max(limit, 1)
            var offset = 0
            while offset < limit {
                var end = min(offset + chunkSize, limit)
                if let hold = behavior.holdAfter {
                    if offset == hold.bytes, !wait(at: hold.gate, on: connection, noticingHangUp: true) {
                        return recordEarlyClose(request)
                    }
                    if offset < hold.bytes { end = min(end, hold.bytes) }
                }
                guard sendBody(body[offset..<end], for: request, on: connection) else { return recordEarlyClose(request) }
                offset = end
                if let interval = behavior.trickle?.pause, offset < limit { pause(interval) }
            }
        }
        // A dropped, over-claimed or close-delimited body ends the connection.
        return behavior.dropAfter == nil && behavior.claimedLength == nil && !behavior.omitsContentLength
    }

    /// The bytes every generated body repeats: 16 KiB, so the sent counts stay fine-grained.
    private static let generatedBlock: [UInt8] = (0..<(16 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

    /// Sends `length` generated bytes, in chunked framing or as they are;
    /// `false` when the client, or `stop()`, ended the connection first.
    private func sendGeneratedBody(length: Int, chunked: Bool, for request: Request, on connection: Int32) -> Bool {
        let block = Self.generatedBlock
        let fullChunk = Self.chunk(block[...])
        var remaining = length
        while remaining > 0 {
            let count = min(remaining, block.count)
            let framed = if !chunked {
                block[..<count]
            } else if count == block.count {
                fullChunk[...]
            } else {
                Self.chunk(block[..<count])[...]
            }
            let sent = send(framed, on: connection)
            // Only the payload counts, also of a chunk cut short.
            let prefix = chunked ? Self.chunkPrefix(count).count : 0
            guard countSent(min(max(sent - prefix, 0), count), for: request), sent == framed.count else { return false }
            remaining -= count
        }
        return true
    }

    /// Sends `head` (a status line) and then one header line that never ends; `false`, as the
    /// connection is not fit for another request.
    private func sendEndlessHeaderLine(after head: String, for request: Request, on connection: Int32) -> Bool {
        var size = Self.generatedBodySendBuffer
        setsockopt(connection, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        let start = Array((head + "X-Endless: ").utf8)
        guard send(start[...], on: connection) == start.count else { return recordEarlyClose(request) }
        let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 16 << 10)
        var sent = 0
        while sent < Self.endlessBodyLimit, !isStopped, send(piece[...], on: connection) == piece.count { sent += piece.count }
        return recordEarlyClose(request)
    }

    /// The size line that opens a chunk of `count` bytes.
    private static func chunkPrefix(_ count: Int) -> [UInt8] {
        Array("\(String(count, radix: 16))\r\n".utf8)
    }

    /// `bytes` as one chunk of a chunked body.
    private static func chunk(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        chunkPrefix(bytes.count) + bytes + Array("\r\n".utf8)
    }

    /// Sends part of a body and counts what went; `false` when the connection or the server ended.
    private func sendBody(_ bytes: ArraySlice<UInt8>, for request: Request, on connection: Int32) -> Bool {
        let sent = send(bytes, on: connection)
        return countSent(sent, for: request) && sent == bytes.count
    }

    /// Adds `count` to the path's sent bytes; `false` once the server has stopped.
    private func countSent(_ count: Int, for request: Request) -> Bool {
        lock.withLock {
            bodyBytesSent[request.path, default: 0] += count
            return !stopped
        }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    /// Waits, counted as held, until `gate` lets the response go or the server
    /// stops; `false` when `noticingHangUp` and the client closed the connection first.
    private func wait(at gate: ResponseGate, on connection: Int32, noticingHangUp: Bool) -> Bool {
        lock.withLock {
            held.now += 1
            held.peak = max(held.peak, held.now)
        }
        defer { lock.withLock { held.now -= 1 } }
        while !gate.pass(), !isStopped {
            if noticingHangUp, Self.clientHasClosed(connection) { return false }
            sleep(.milliseconds(1))
        }
        return true
    }

    /// Whether the client closed its end (or reset it): a peek that finds the end of the stream or an error.
    private static func clientHasClosed(_ connection: Int32) -> Bool {
        var byte: UInt8 = 0
        let got = recv(connection, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
    }

    private func recordEarlyClose(_ request: Request) -> Bool {
        lock.withLock { earlyCloses[request.path, default: 0] += 1 }
        return false
    }

    /// Sends `bytes`; how many the kernel took, all of them unless the connection failed.
    private func send(_ bytes: ArraySlice<UInt8>, on connection: Int32) -> Int {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { break }
            offset += sent
        }
        return offset - bytes.startIndex
    }

    /// Waits `duration` in short steps, ending early when the server stops:
    /// a trickle's pauses must not hold up `stop()`, which ends every connection.
    private func pause(_ duration: Duration) {
        let deadline = ContinuousClock.now + duration
        while !isStopped {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return }
            sleep(min(left, .milliseconds(5)))
        }
    }

    private func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 304: "Not Modified"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}

extension TestHTTPServer.Behavior {
    /// A redirect to `location` (absolute, or relative to the request's URL).
    public static func redirect(to location: String, status: Int = 302) -> Self {
        Self(status: status, headers: ["Location": location])
    }

    /// A 200 whose body never ends (see ``endlessBody``).
    public static func endless(_ framing: TestHTTPServer.EndlessBody) -> Self {
        var behavior = Self()
        behavior.endlessBody = framing
        return behavior
    }

    /// A 200 of `length` generated bytes, with that Content-Length, made as they are sent.
    public static func generated(length: Int) -> Self {
        var behavior = Self()
        behavior.generatedBodyLength = length
        return behavior
    }

    /// Takes the request and answers nothing, not even a status line, until
    /// the server stops: the connection stays open and silent.
    public static var headersNeverSent: Self {
        var behavior = Self()
        behavior.gate = ResponseGate()  // never opened
        return behavior
    }
}
