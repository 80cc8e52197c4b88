import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing

/// The loopback server the pipeline tests will use does what they need,
/// checked with URLSession as the client.
@Suite final class TestHTTPServerTests {
    let server: TestHTTPServer
    let session = URLSession(configuration: .ephemeral)

    init() throws {
        server = try TestHTTPServer()
    }

    deinit {
        server.stop()
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
