import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One HTTP/1.1 request to a server on 127.0.0.1, over a socket of its own with
/// `Connection: close`, read to the end: what a test of a server it started sends.
/// Blocking: call it inside ``runBlocking(_:)``. Every read gives up after 30 s, so a
/// server that never answers fails the test instead of hanging it.
public enum TestHTTPClient {
    public struct Response: Sendable {
        public let status: Int
        /// Header names lower-cased.
        public let headers: [String: String]
        public let body: [UInt8]
    }

    /// A request that got no HTTP response, or a test that got none it could use.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    public static func request(_ method: String = "GET", port: Int, path: String,
                            headers: [String: String] = [:]) throws -> Response {
        let connection = try TestSocket(port: port)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let request = Array((head + "\r\n").utf8)
        guard connection.send(request) else { throw Failure(description: "send: errno \(errno)") }
        return try parse(try connection.receiveToEnd())
    }

    /// A response read off a connection: status line, headers, and the rest as the body.
    public static func parse(_ bytes: [UInt8]) throws -> Response {
        let separator = Array("\r\n\r\n".utf8)
        guard let end = (0...max(0, bytes.count - separator.count)).first(where: { bytes[$0..<min(bytes.count, $0 + 4)].elementsEqual(separator) })
        else { throw Failure(description: "no response head in \(bytes.count) bytes") }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure(description: "bad status line \(lines[0])") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: status, headers: headers, body: Array(bytes[(end + 4)...]))
    }
}
