import Synchronization
import TestSupport
import Testing
import ThumbnailHTTP
import ThumbnailKit

/// HTTP through URLSession against the loopback server: statuses, limits,
/// truncation, timeouts, cancellation and conditional requests.
@Suite final class URLSessionDataLoaderTests: Sendable {
    let server: TestHTTPServer
    let loader = URLSessionDataLoader()
    let body = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    init() throws {
        server = try TestHTTPServer()
    }

    deinit { server.stop() }

    private func load(_ path: String, _ request: (inout DataRequest) -> Void = { _ in },
                      using loader: URLSessionDataLoader? = nil,
                      progress: @escaping @Sendable (TransferProgress) -> Void = { _ in }) async throws -> LoadedData {
        var dataRequest = DataRequest(url: server.url(path))
        request(&dataRequest)
        return try await (loader ?? self.loader).load(dataRequest, progress: progress)
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

    @Test func cancellingTheCallerStopsTheTransferAndThrowsCancellationError() async throws {
        var behavior = TestHTTPServer.Behavior(body: body)
        behavior.trickle = (chunk: 1_000, pause: .milliseconds(20))
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

    @Test func aServerThatDoesNotAnswerTimesOut() async throws {
        var behavior = TestHTTPServer.Behavior(body: body)
        behavior.headerDelay = .seconds(3)
        server.route("/stalled.jpg", behavior)
        let impatient = URLSessionDataLoader(configuration: .init(connectTimeout: .milliseconds(500)))
        let started = ContinuousClock.now
        await #expect(throws: DataLoadingError.timedOut(server.url("/stalled.jpg"), after: .milliseconds(500))) {
            try await self.load("/stalled.jpg", using: impatient)
        }
        // Not before its time (URLSession's own sub-second timeouts fire at once on Linux).
        #expect(ContinuousClock.now - started >= .milliseconds(500))
    }

    @Test func aTransferThatTricklesPastTheWholeTransferTimeoutIsStopped() async throws {
        var behavior = TestHTTPServer.Behavior(body: body)
        behavior.trickle = (chunk: 1_000, pause: .milliseconds(50))  // 15 s in all, steadily
        server.route("/trickle.jpg", behavior)
        let bounded = URLSessionDataLoader(configuration: .init(transferTimeout: .milliseconds(600)))
        await #expect(throws: DataLoadingError.timedOut(server.url("/trickle.jpg"), after: .milliseconds(600))) {
            try await self.load("/trickle.jpg", using: bounded)
        }
    }

    @Test func aRefusedConnectionIsATransientNetworkError() async throws {
        let url = server.url("/photo.jpg")
        server.stop()
        do {
            _ = try await loader.load(DataRequest(url: url)) { _ in }
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
        for url in ["file:///etc/passwd", "/etc/passwd", "ftp://127.0.0.1/a.jpg", "http://"] {
            await #expect(throws: DataLoadingError.unsupportedURL(url)) {
                try await self.loader.load(DataRequest(url: url)) { _ in }
            }
        }
    }
}
