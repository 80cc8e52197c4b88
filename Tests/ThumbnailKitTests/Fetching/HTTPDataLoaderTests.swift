import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import Testing
import ThumbnailHTTP
import ThumbnailKit

/// HTTP through libcurl against the loopback server: statuses, limits,
/// truncation, timeouts, redirects, the address policy, backpressure,
/// cancellation and conditional requests.
@Suite final class HTTPDataLoaderTests: Sendable {
    let server: TestHTTPServer
    let loader: HTTPDataLoader
    let body = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    /// A response head and the body that streamed into memory.
    struct Loaded {
        let response: ResponseHead
        let bytes: [UInt8]
        var notModified: Bool { response.notModified }
        var etag: String? { response.etag }
        var lastModified: String? { response.lastModified }
        var contentType: String? { response.contentType }
    }

    init() throws {
        server = try TestHTTPServer()
        loader = try HTTPDataLoader()
    }

    deinit { server.stop() }

    private func load(_ path: String, _ request: (inout DataRequest) -> Void = { _ in },
                      using loader: HTTPDataLoader? = nil,
                      progress: @escaping @Sendable (TransferProgress) -> Void = { _ in }) async throws -> Loaded {
        var dataRequest = DataRequest(url: path.hasPrefix("/") ? server.url(path) : path)
        request(&dataRequest)
        let sink = MemoryBodySink()
        let response = try await (loader ?? self.loader).load(dataRequest, into: sink, progress: progress)
        return Loaded(response: response, bytes: sink.bytes)
    }

    @Test func streamsTheBodyWithProgressInOrderEndingAtOneHundred() async throws {
        var behavior = TestHTTPServer.Behavior(body: body, headers: ["Content-Type": "image/jpeg"])
        behavior.trickle = (chunk: 50_000, pause: .milliseconds(5))
        server.route("/photo.jpg", behavior)
        let reports = Mutex([TransferProgress]())
        let loaded = try await load("/photo.jpg", progress: { progress in reports.withLock { $0.append(progress) } })
        #expect(loaded.bytes == body)
        #expect(loaded.contentType == "image/jpeg" && !loaded.notModified)
        let received = reports.withLock { $0.map(\.receivedBytes) }
        #expect(received.first == 0 && received == received.sorted() && received.count > 2)
        #expect(reports.withLock { $0.last?.percent } == 100)
        #expect(server.requestCount("/photo.jpg") == 1)
    }

    @Test func statusesOtherThan2xxAreTypedErrorsWithRetryAfter() async throws {
        server.route("/missing.jpg", TestHTTPServer.Behavior(status: 404, body: Array("gone".utf8)))
        server.route("/busy.jpg", TestHTTPServer.Behavior(status: 503, headers: ["Retry-After": "2"]))
        await #expect(throws: DataLoadingError.httpStatus(server.url("/missing.jpg"), status: 404, retryAfter: nil)) {
            try await self.load("/missing.jpg")
        }
        await #expect(throws: DataLoadingError.httpStatus(server.url("/busy.jpg"), status: 503, retryAfter: .seconds(2))) {
            try await self.load("/busy.jpg")
        }
        #expect(server.requestCount("/missing.jpg") == 1)
    }

    @Test func anAnnouncedLengthOverTheLimitIsRefusedBeforeTheBodyIsRead() async throws {
        var behavior = TestHTTPServer.Behavior(body: body)
        behavior.claimedLength = 200_000_000
        behavior.trickle = (chunk: 10_000, pause: .milliseconds(20))
        server.route("/huge.png", behavior)
        let bodyBytesSeen = Mutex(0)
        await #expect(throws: DataLoadingError.tooLarge(server.url("/huge.png"), bytes: 200_000_000, limit: 50_000_000)) {
            try await self.load("/huge.png", progress: { progress in bodyBytesSeen.withLock { $0 += progress.receivedBytes } })
        }
        #expect(bodyBytesSeen.withLock { $0 } == 0, "no body byte reached the caller")
    }

    @Test func aBodyWithoutALengthIsCutOffAtTheLimitWhileStreaming() async throws {
        var behavior = TestHTTPServer.Behavior(body: body)
        behavior.omitsContentLength = true
        behavior.trickle = (chunk: 20_000, pause: .milliseconds(5))
        server.route("/endless.jpg", behavior)
        do {
            _ = try await load("/endless.jpg") { $0.maximumBytes = 100_000 }
            Issue.record("a 300 kB body passed a 100 kB limit")
        } catch let DataLoadingError.tooLarge(url, bytes, limit) {
            #expect(url == server.url("/endless.jpg") && limit == 100_000)
            #expect(bytes > 100_000 && bytes < 300_000, "stopped while streaming, at \(bytes) bytes")
        }
        // Without a limit the same close-delimited body arrives whole.
        server.route("/endless.jpg", behavior)
        #expect(try await load("/endless.jpg").bytes == body)
    }

    @Test func aDroppedConnectionIsATruncatedTransferNeverAShortSuccess() async throws {
        var behavior = TestHTTPServer.Behavior(body: body)
        behavior.dropAfter = 100_000
        server.route("/cut.jpg", behavior)
        do {
            _ = try await load("/cut.jpg")
            Issue.record("a body cut at 100 kB of 300 kB was returned")
        } catch let error as DataLoadingError {
            #expect(error.isTransient)
            if case let .truncated(_, received, expected) = error {
                #expect(received <= 100_000 && expected == 300_000)
            } else {
                Issue.record("unexpected error \(error)")
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func cancellingTheCallerStopsTheTransferAndThrowsCancellationError() async throws {
        // 1 kB, then nothing until a gate that never opens: only the cancel can end the transfer.
        var behavior = TestHTTPServer.Behavior(body: body)
        behavior.holdAfter = (bytes: 1_000, gate: ResponseGate())
        server.route("/slow.jpg", behavior)
        let started = Mutex(false)
        let task = Task {
            try await self.load("/slow.jpg", progress: { _ in started.withLock { $0 = true } })
        }
        while !started.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        // The server notices the closed connection at its next write.
        for _ in 0..<200 where server.earlyCloseCount("/slow.jpg") == 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(server.earlyCloseCount("/slow.jpg") == 1)
    }

    @Test func aLoadWhoseTaskIsAlreadyCancelledSendsNothing() async throws {
        server.route("/photo.jpg", .init(body: body))
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await self.load("/photo.jpg")
        }
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        // A request sent anyway would reach the server before this one.
        #expect(try await load("/photo.jpg").bytes == body)
        #expect(server.requestCount("/photo.jpg") == 1)
    }

    @Test func aConditionalRequestAnsweredNotModifiedCostsNoBody() async throws {
        var behavior = TestHTTPServer.Behavior(body: body)
        behavior.etag = "\"v1\""
        behavior.lastModified = "Sun, 22 Nov 2026 10:00:00 GMT"
        server.route("/photo.jpg", behavior)
        let first = try await load("/photo.jpg")
        #expect(first.etag == "\"v1\"" && first.lastModified == "Sun, 22 Nov 2026 10:00:00 GMT")

        let byETag = try await load("/photo.jpg") { $0.validators = .init(etag: "\"v1\"", lastModified: nil) }
        #expect(byETag.notModified && byETag.bytes.isEmpty)
        let byDate = try await load("/photo.jpg") {
            $0.validators = .init(etag: nil, lastModified: "Sun, 22 Nov 2026 10:00:00 GMT")
        }
        #expect(byDate.notModified && byDate.bytes.isEmpty)
        let changed = try await load("/photo.jpg") { $0.validators = .init(etag: "\"v0\"", lastModified: nil) }
        #expect(!changed.notModified && changed.bytes == body)
        let sent = server.receivedRequests.map { $0.headers["if-none-match"] }
        #expect(sent == [nil, "\"v1\"", nil, "\"v0\""])
    }

    @Test func aServerThatNeverSendsItsHeadersStallsBelowTheSpeedFloor() async throws {
        let gate = ResponseGate()
        var behavior = TestHTTPServer.Behavior(body: body)
        behavior.gate = gate
        server.route("/silent.jpg", behavior)
        let impatient = try HTTPDataLoader(configuration: .init(lowSpeedTime: .seconds(1)))
        let started = ContinuousClock.now
        await #expect(throws: DataLoadingError.stalled(server.url("/silent.jpg"), bytesPerSecond: 1024, duration: .seconds(1))) {
            try await self.load("/silent.jpg", using: impatient)
        }
        #expect(ContinuousClock.now - started >= .seconds(1), "not before its time")
        gate.open()
    }

    @Test func aTricklingBodyStallsBelowTheSpeedFloorAndIsTransient() async throws {
        var behavior = TestHTTPServer.Behavior(body: body)
        behavior.trickle = (chunk: 100, pause: .milliseconds(200))  // 500 bytes/s
        server.route("/trickle.jpg", behavior)
        let impatient = try HTTPDataLoader(configuration: .init(lowSpeedTime: .seconds(1)))
        do {
            _ = try await load("/trickle.jpg", using: impatient)
            Issue.record("a 500 bytes/s body passed a 1024 bytes/s floor")
        } catch let error as DataLoadingError {
            #expect(error == .stalled(server.url("/trickle.jpg"), bytesPerSecond: 1024, duration: .seconds(1)))
            #expect(error.isTransient)
        }
    }

    @Test func aTransferThatTricklesPastTheWholeTransferTimeoutIsStopped() async throws {
        var behavior = TestHTTPServer.Behavior(body: body)
        behavior.trickle = (chunk: 1_000, pause: .milliseconds(50))  // 15 s in all, steadily
        server.route("/trickle.jpg", behavior)
        let bounded = try HTTPDataLoader(configuration: .init(transferTimeout: .milliseconds(600)))
        do {
            _ = try await load("/trickle.jpg", using: bounded)
            Issue.record("a 15 s body finished within 600 ms")
        } catch let error as DataLoadingError {
            #expect(error == .transferTimedOut(server.url("/trickle.jpg"), after: .milliseconds(600)))
            #expect(!error.isTransient, "a body that outlasted the transfer timeout would only trickle again")
        }
    }

    @Test func aRefusedConnectionIsATransientNetworkError() async throws {
        let url = server.url("/photo.jpg")
        server.stop()
        do {
            _ = try await load(url)
            Issue.record("a stopped server answered")
        } catch let error as DataLoadingError {
            guard case .network = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(error.isTransient)
        }
    }

    @Test func onlyHTTPURLsAreServed() async throws {
        for url in ["file:///etc/passwd", "etc/passwd", "ftp://127.0.0.1/a.jpg", "gopher://127.0.0.1/", "http://"] {
            await #expect(throws: DataLoadingError.unsupportedURL(url)) {
                try await self.load(url)
            }
        }
    }
}

/// Where a transfer may go: redirects, schemes, the address policy.
@Suite final class HTTPDataLoaderDestinationTests: Sendable {
    let server: TestHTTPServer

    init() throws {
        server = try TestHTTPServer()
    }

    deinit { server.stop() }

    private func redirect(_ path: String, to location: String) {
        server.route(path, .init(status: 302, headers: ["Location": location]))
    }

    private func load(_ path: String, with loader: HTTPDataLoader? = nil) async throws -> [UInt8] {
        try await (loader ?? HTTPDataLoader()).loadBytes(DataRequest(url: server.url(path)))
    }

    @Test func redirectsAreFollowedUpToTheLimit() async throws {
        server.route("/image.jpg", .init(body: Array("pixels".utf8)))
        redirect("/1", to: "/2")
        redirect("/2", to: server.url("/image.jpg"))
        #expect(try await load("/1") == Array("pixels".utf8))
        for hop in 1...6 { redirect("/chain\(hop)", to: "/chain\(hop + 1)") }
        server.route("/chain7", .init(body: Array("too far".utf8)))
        await #expect(throws: DataLoadingError.tooManyRedirects(server.url("/chain1"), limit: 5)) {
            try await self.load("/chain1")
        }
        #expect(server.requestCount("/chain7") == 0)
    }

    @Test func transfersToOneServerShareAConnection() async throws {
        server.route("/image.jpg", .init(body: Array("pixels".utf8)))
        let loader = try HTTPDataLoader()
        for _ in 0..<5 { #expect(try await load("/image.jpg", with: loader) == Array("pixels".utf8)) }
        #expect(server.requestCount("/image.jpg") == 5 && server.acceptedConnections == 1)
    }

    @Test func aRedirectLoopEndsAtTheLimit() async throws {
        redirect("/a", to: "/b")
        redirect("/b", to: "/a")
        await #expect(throws: DataLoadingError.tooManyRedirects(server.url("/a"), limit: 5)) {
            try await self.load("/a")
        }
        #expect(server.requestCount("/a") + server.requestCount("/b") == 6)
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://127.0.0.1/x.jpg", "gopher://127.0.0.1/x", "dict://127.0.0.1/x"])
    func aRedirectToAnotherSchemeIsRefusedNamingItsTarget(target: String) async throws {
        redirect("/r", to: target)
        await #expect(throws: DataLoadingError.redirectRefused(server.url("/r"), target: target)) {
            try await self.load("/r")
        }
    }

    @Test func publicOnlyRefusesLoopbackBeforeConnecting() async throws {
        server.route("/image.jpg", .init(body: Array("pixels".utf8)))
        let strict = try HTTPDataLoader(configuration: .init(addressPolicy: .publicOnly))
        await #expect(throws: DataLoadingError.privateAddressRefused(server.url("/image.jpg"), address: "127.0.0.1")) {
            try await self.load("/image.jpg", with: strict)
        }
        #expect(server.requestCount("/image.jpg") == 0)
        // The same request with the default policy.
        #expect(try await load("/image.jpg") == Array("pixels".utf8))
    }

    @Test func publicOnlyRefusesAPrivateAddressWithoutAnyTraffic() async throws {
        let strict = try HTTPDataLoader(configuration: .init(addressPolicy: .publicOnly))
        for (url, address) in [("http://10.1.2.3/x.jpg", "10.1.2.3"), ("http://[::1]:9/x.jpg", "::1"),
                               ("http://169.254.169.254/latest/meta-data/", "169.254.169.254")] {
            await #expect(throws: DataLoadingError.privateAddressRefused(url, address: address)) {
                try await strict.loadBytes(DataRequest(url: url))
            }
        }
    }

    @Test func aFeedOnTheWebGetsPublicAddressesOnlyAndALocalOneAny() {
        let strangers = ["https://example.com/feed.json", "http://93.184.216.34:8080/f.xml", "HTTP://user@Example.com/rss",
                         "https://[2606:4700::1111]/feed", "http://localhost.example.com/feed"]
        let ours = ["feed.json", "/srv/feed.json", "file:///srv/feed.json", "http://localhost:8000/feed.json",
                    "http://127.0.0.1:8080/f", "http://[::1]:9/f", "https://192.168.1.20/feed", "http://app.localhost/f",
                    "http://user:pw@10.0.0.5/feed"]
        for feed in strangers { #expect(HTTPDataLoader.AddressPolicy.default(forFeedAt: feed) == .publicOnly, "\(feed)") }
        for feed in ours { #expect(HTTPDataLoader.AddressPolicy.default(forFeedAt: feed) == .any, "\(feed)") }
    }
}

/// The bound on memory: however fast servers send, each transfer holds at
/// most its buffer, because a slow sink pauses the socket.
@Suite struct HTTPDataLoaderBackpressureTests {
    /// A sink that writes slowly and checks every byte it gets.
    final class SlowCheckingSink: BodySink {
        let expected: [UInt8]
        private let state = Mutex((received: 0, intact: true))

        init(expected: [UInt8]) {
            self.expected = expected
        }

        var receivedWholeBody: Bool { state.withLock { $0.intact && $0.received == expected.count } }

        func begin(_ response: ResponseHead) throws {}

        func write(_ bytes: UnsafeRawBufferPointer) throws {
            usleep(2_000)  // a disk far slower than loopback
            state.withLock { state in
                let end = min(expected.count, state.received + bytes.count)
                let range = min(state.received, end)..<end
                state.intact = state.intact && range.count == bytes.count && expected[range].elementsEqual(bytes)
                state.received += bytes.count
            }
        }
    }

    @Test func manyFastTransfersIntoSlowSinksHoldAtMostOneBufferEach() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let body = (0..<6_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }
        let transfers = 4
        for index in 0..<transfers { server.route("/\(index).bin", .init(body: body)) }
        let capacity = 128 * 1024
        let loader = try HTTPDataLoader(configuration: .init(bufferCapacity: capacity))
        let sinks = (0..<transfers).map { _ in SlowCheckingSink(expected: body) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<transfers {
                group.addTask {
                    _ = try await loader.load(DataRequest(url: server.url("/\(index).bin")), into: sinks[index]) { _ in }
                }
            }
            try await group.waitForAll()
        }
        #expect(sinks.allSatisfy { $0.receivedWholeBody })
        #expect(loader.peakBufferedBodyBytes <= transfers * capacity,
                "held \(loader.peakBufferedBodyBytes) bytes at most for \(transfers) transfers")
        #expect(loader.peakBufferedBodyBytes > capacity, "the transfers did run side by side")
        #expect(loader.bufferedBodyBytes == 0)
    }
}
