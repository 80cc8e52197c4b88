import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A raw TCP connection to a server on 127.0.0.1, closed when released: what a
/// test needs to play a client no library would be (one that connects and says
/// nothing, sends its headers a byte at a time, or sends garbage). Blocking: use
/// it inside ``runBlocking(_:)``. A receive gives up after 30 s, so a server
/// that never answers fails the test instead of hanging it.
public final class TestSocket: Sendable {
    public let descriptor: Int32

    /// Connects to `port` on 127.0.0.1.
    public init(port: Int) throws {
        descriptor = try TestHTTPClient.connect(port: port)
    }

    deinit { close(descriptor) }

    /// Sends all of `bytes`; false when the server has closed or reset the
    /// connection first (a server may refuse a request before it has all of it).
    @discardableResult
    public func send(_ bytes: some Collection<UInt8>) -> Bool {
        (try? TestHTTPClient.send(Array(bytes), on: descriptor)) != nil
    }

    /// Sends as much of `bytes` as fits in the connection's buffers now, without
    /// waiting (nothing once a server has stopped reading); false when the server
    /// has closed or reset the connection.
    public func sendWithoutWaiting(_ bytes: some Collection<UInt8>) -> Bool {
        let count = Array(bytes).withUnsafeBytes { sendWithoutSignal(descriptor, $0) }
        return count >= 0 || errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR
    }

    /// Everything the server sends until it closes the connection, or resets
    /// it: a whole response to a request with `Connection: close`, or what a
    /// server answered before it hung up on a client it refused.
    /// - Throws: ``TestHTTPClient/Failure`` when 30 s pass without a byte, or on another error.
    public func receiveToEnd() throws -> [UInt8] {
        var received = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += chunk[..<count]
                continue
            }
            if count == 0 || errno == ECONNRESET { return received }
            if errno == EINTR { continue }
            throw TestHTTPClient.Failure(description: "recv: errno \(errno) after \(received.count) bytes")
        }
    }

    /// Whether the server has closed (or reset) this connection, without waiting;
    /// reads and discards whatever it sent before (a refusal's response, say).
    public func drainIsClosed() -> Bool {
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = scratch.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 { continue }
            if count < 0 && errno == EINTR { continue }
            return count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)
        }
    }
}

/// `send(2)` without SIGPIPE or waiting, outside `TestSocket` whose own `send` would shadow it.
private func sendWithoutSignal(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
    send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
}
