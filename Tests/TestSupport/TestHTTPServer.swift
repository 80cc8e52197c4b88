import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP/1.1 server on 127.0.0.1 (a free port) for the pipeline
/// tests. Each path has a ``Behavior``: serve bytes, fail with a status,
/// stall, trickle, drop the connection mid-body or lie about the length. It
/// counts requests per path and notices clients that hang up early.
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

        public init(status: Int = 200, body: [UInt8] = [], headers: [String: String] = [:]) {
            self.status = status
            self.body = body
            self.headers = headers
        }
    }

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
    private var connections: Set<Int32> = []
    private var stopped = false

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
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
            let accepted = lock.withLock { () -> Bool in
                guard !stopped else { return false }
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
        if behavior.headerDelay > .zero { sleep(behavior.headerDelay) }
        if let gate = behavior.gate {
            while !gate.isOpen, !lock.withLock({ stopped }) { sleep(.milliseconds(1)) }
        }
        var status = behavior.status
        var body = behavior.body
        let etagMatches = behavior.etag != nil && request.headers["if-none-match"] == behavior.etag
        let dateMatches = behavior.lastModified != nil && request.headers["if-modified-since"] == behavior.lastModified
        if etagMatches || dateMatches {
            status = 304
            body = []
        }
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        if behavior.omitsContentLength {
            head += "Connection: close\r\n"
        } else {
            head += "Content-Length: \(behavior.claimedLength ?? body.count)\r\n"
        }
        if let etag = behavior.etag { head += "ETag: \(etag)\r\n" }
        if let lastModified = behavior.lastModified { head += "Last-Modified: \(lastModified)\r\n" }
        for (name, value) in behavior.headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        guard send(Array(head.utf8), on: connection) else { return recordEarlyClose(request) }
        if request.method == "HEAD" { return true }

        let limit = min(behavior.dropAfter ?? body.count, body.count)
        let chunkSize = behavior.trickle?.chunk ?? max(limit, 1)
        var offset = 0
        while offset < limit {
            let end = min(offset + chunkSize, limit)
            guard send(Array(body[offset..<end]), on: connection) else { return recordEarlyClose(request) }
            offset = end
            if let pause = behavior.trickle?.pause, offset < limit { sleep(pause) }
        }
        // A dropped, over-claimed or close-delimited body ends the connection.
        return behavior.dropAfter == nil && behavior.claimedLength == nil && !behavior.omitsContentLength
    }

    private func recordEarlyClose(_ request: Request) -> Bool {
        lock.withLock { earlyCloses[request.path, default: 0] += 1 }
        return false
    }

    private func send(_ bytes: [UInt8], on connection: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
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
        case 304: "Not Modified"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
