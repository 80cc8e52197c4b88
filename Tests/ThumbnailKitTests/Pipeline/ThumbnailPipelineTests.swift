import Foundation
import Synchronization
import TestSupport
import Testing
import ThumbnailHTTP
@testable import ThumbnailKit

/// The pipeline end to end against the loopback server, with request counts
/// observed at the server: coalescing, cancellation, retries, errors, the
/// cache tiers and progress.
@Suite final class ThumbnailPipelineTests: Sendable {
    let server: TestHTTPServer
    let temporary: TemporaryDirectory
    let disk: DiskCache
    let photo: [UInt8]
    static let photoName = "photo-aitzgorri-baseline-3000x1998.jpg"

    init() throws {
        server = try TestHTTPServer()
        temporary = try TemporaryDirectory()
        disk = try DiskCache(directory: temporary.path("cache"))
        photo = try Fixtures.bytes(ofTestImage: Self.photoName)
    }

    deinit { server.stop() }

    /// Quick retries without jitter, so a test of three attempts takes a fraction of a second.
    static let quickRetries = RetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(50), jitter: 0)

    func makePipeline(retryPolicy: RetryPolicy = quickRetries, downloads: Int = 6,
                      loader: HTTPDataLoader? = nil) throws -> ThumbnailPipeline {
        ThumbnailPipeline(configuration: .init(dataLoader: try loader ?? HTTPDataLoader(), diskCache: disk,
                                               maximumConcurrentDownloads: downloads, retryPolicy: retryPolicy))
    }

    func request(_ path: String, size: Int = 256, priority: RequestPriority = .normal,
                 policy: CachePolicy = .useCache) -> ThumbnailRequest {
        ThumbnailRequest(url: server.url(path), size: .fit(size), priority: priority, cachePolicy: policy)
    }

    /// The photo, sent slowly enough that callers can join, leave or cancel mid-transfer (about 2 s whole).
    func slowPhoto() -> TestHTTPServer.Behavior {
        var behavior = TestHTTPServer.Behavior(body: photo)
        behavior.trickle = (chunk: 16 * 1024, pause: .milliseconds(30))
        return behavior
    }

    var storedEntries: Int { (try? disk.statistics().totalEntries) ?? -1 }

    /// Files under the cache's namespaces, temporary ones included: a download streams into a
    /// temporary file, and one that fails must leave nothing behind, not even that.
    var filesInCache: [String] {
        (FileManager.default.enumerator(atPath: disk.directory)?.allObjects as? [String] ?? [])
            .filter { ($0.hasPrefix("originals/") || $0.hasPrefix("thumbnails/")) && $0.split(separator: "/").count == 3 }
    }

    // MARK: Coalescing

    @Test func twentyConcurrentRequestsForOneURLShareOneGETAndOneDecode() async throws {
        var behavior = TestHTTPServer.Behavior(body: photo)
        behavior.headerDelay = .milliseconds(300)
        server.route("/photo.jpg", behavior)
        let pipeline = try makePipeline()
        let thumbnails = try await withThrowingTaskGroup(of: Thumbnail.self) { group in
            for _ in 0..<20 { group.addTask { try await pipeline.thumbnail(for: self.request("/photo.jpg")) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(thumbnails.count == 20)
        #expect(thumbnails.allSatisfy { $0.width == 256 && $0.height == 170 && $0.pixels === thumbnails[0].pixels })
        #expect(server.requestCount("/photo.jpg") == 1)
        #expect(pipeline.statistics.decodes == 1 && pipeline.statistics.downloads == 1)
    }

    @Test func decodesThatNeedAWholeImageBufferRunUnderTheLargeDecodeLimit() async throws {
        let progressive = "photo-picosdeeuropa-progressive-2048x1536.jpg"
        for name in [progressive, "jpeg-progressive-444-gradient-256x192.jpg",
                     "photo-aitzgorri-baseline-3000x1998.jpg", "photo-life-adam7-rgb-640x480.png"] {
            server.route("/\(name)", .init(body: try Fixtures.bytes(ofTestImage: name)))
        }
        let pipeline = try makePipeline()
        for name in [progressive, "jpeg-progressive-444-gradient-256x192.jpg",
                     "photo-aitzgorri-baseline-3000x1998.jpg", "photo-life-adam7-rgb-640x480.png"] {
            _ = try await pipeline.thumbnail(for: request("/\(name)"))
        }
        // At 256 px the 2048×1536 progressive JPEG is decoded at 1/8, on the DC-only path: no large buffer.
        #expect(pipeline.statistics.decodes == 4 && pipeline.statistics.largeDecodes == 0)
        // At 512 px it is decoded at 1/4 by libjpeg, which keeps every coefficient: past 4 MiB.
        _ = try await pipeline.thumbnail(for: request("/\(progressive)", size: 512))
        #expect(pipeline.statistics.decodes == 5 && pipeline.statistics.largeDecodes == 1)

        let header = try ThumbnailDecoder().readHeader(try Fixtures.bytes(ofTestImage: progressive))
        #expect(ThumbnailDecoder(size: .fit(512)).wholeImageBufferBytes(for: header) == 256 * 192 * 3 * 128)
        #expect(ThumbnailDecoder(size: .fit(256)).wholeImageBufferBytes(for: header) == 256 * 192 * 3 * 2)
        #expect(ThumbnailDecoder(size: .fit(256), progressivePath: .skippingScans).wholeImageBufferBytes(for: header)
            == 256 * 192 * 3 * 128)
        let baseline = try ThumbnailDecoder().readHeader(try Fixtures.bytes(ofTestImage: "photo-aitzgorri-baseline-3000x1998.jpg"))
        #expect(ThumbnailDecoder().wholeImageBufferBytes(for: baseline) == 0)
    }

    /// The decoder's estimate of the DCT scale is the scale the C decoder picks, at every size around the edges.
    @Test func theScaleEstimateIsTheScaleTheDecoderPicks() throws {
        for name in ["photo-picosdeeuropa-progressive-2048x1536.jpg", "jpeg-exif-orientation-6-mm.jpg",
                     "jpeg-odd-17x13.jpg", "jpeg-odd-333x1.jpg", "jpeg-strip-9000x5.jpg"] {
            let bytes = try Fixtures.bytes(ofTestImage: name)
            let header = try ThumbnailDecoder().readHeader(bytes)
            for box in [1, 2, 3, 16, 255, 256, 257, 511, 512, 513, 1024, 1025] {
                let decoder = ThumbnailDecoder(size: .fit(box))
                #expect(decoder.scaleNumerator(for: header) == (try decoder.decode(bytes)).report?.scaleNumerator,
                        "\(name) at \(box)")
            }
        }
    }

    /// A thumbnail's pixels depend on its source and size only, never on the sizes asked for beside
    /// it: each size wanted together is decoded at its own size (at 1024 px this photo is decoded at
    /// 4/8, at 256 px and below at 1/8), from the one download, and is byte for byte the thumbnail
    /// a decode of that size alone makes.
    @Test func sizesOfOneURLWantedTogetherShareADownloadAndEachIsTheThumbnailItIsAlone() async throws {
        let gate = ResponseGate()
        var behavior = TestHTTPServer.Behavior(body: photo)
        behavior.gate = gate
        server.route("/photo.jpg", behavior)
        let pipeline = try makePipeline()
        let sizes = [64, 128, 256, 200, 1024]
        let made = try await withThrowingTaskGroup(of: (Int, Thumbnail).self) { group in
            for size in sizes {
                group.addTask { (size, try await pipeline.thumbnail(for: self.request("/photo.jpg", size: size))) }
            }
            #expect(try await eventually { pipeline.waiterCount(for: self.request("/photo.jpg")) == sizes.count })
            gate.open()
            return try await group.reduce(into: [Int: Thumbnail]()) { $0[$1.0] = $1.1 }
        }
        #expect(server.requestCount("/photo.jpg") == 1)
        #expect(pipeline.statistics.decodes == sizes.count)
        for size in sizes {
            let alone = try await ThumbnailDecoder(size: .fit(size)).decode(photo)
            let thumbnail = try #require(made[size])
            #expect((thumbnail.width, thumbnail.height) == (alone.width, alone.height))
            #expect(thumbnail.maximumDifference(from: alone) == 0, "\(size) px beside \(sizes)")
        }
        // Each size was kept: asking again costs nothing.
        for size in sizes { _ = try await pipeline.thumbnail(for: request("/photo.jpg", size: size)) }
        #expect(pipeline.statistics.memoryHits == sizes.count && server.requestCount("/photo.jpg") == 1)
    }

    // MARK: Cancellation

    @Test func cancellingOneOfTwoWaitersLeavesTheTransferRunningForTheOther() async throws {
        server.route("/photo.jpg", slowPhoto())
        let pipeline = try makePipeline()
        let firstBytes = Mutex(false)
        let leaving = Task {
            try await pipeline.thumbnail(for: self.request("/photo.jpg")) { _ in firstBytes.withLock { $0 = true } }
        }
        let staying = Task { try await pipeline.thumbnail(for: self.request("/photo.jpg")) }
        #expect(try await eventually { firstBytes.withLock { $0 } })
        leaving.cancel()
        await #expect { try await leaving.value } throws: { ThumbnailError.matches($0, .cancelled) }
        let thumbnail = try await staying.value
        #expect(thumbnail.width == 256)
        #expect(server.requestCount("/photo.jpg") == 1 && server.earlyCloseCount("/photo.jpg") == 0)
    }

    @Test func cancellingEveryWaiterClosesTheConnectionAndStoresNothing() async throws {
        // Held after its first half until the client hangs up: however slow the machine, the
        // transfer cannot finish first, so the only way to end it is the cancellation's.
        var held = TestHTTPServer.Behavior(body: photo)
        held.holdAfter = (bytes: photo.count / 2, gate: ResponseGate())
        server.route("/photo.jpg", held)
        let pipeline = try makePipeline()
        let firstBytes = Mutex(false)
        let waiters = [
            Task { try await pipeline.thumbnail(for: self.request("/photo.jpg")) { _ in firstBytes.withLock { $0 = true } } },
            Task { try await pipeline.thumbnail(for: self.request("/photo.jpg")) },
        ]
        #expect(try await eventually { firstBytes.withLock { $0 } })
        for waiter in waiters { waiter.cancel() }
        for waiter in waiters {
            await #expect { try await waiter.value } throws: { ThumbnailError.matches($0, .cancelled) }
        }
        // Only a client that hung up before the end shows as an early close.
        #expect(try await eventually { self.server.earlyCloseCount("/photo.jpg") == 1 })
        #expect(server.requestCount("/photo.jpg") == 1)
        #expect(storedEntries == 0 && pipeline.memoryStatistics.count == 0)
        #expect(try await eventually { self.filesInCache.isEmpty }, "\(filesInCache)")
        #expect(pipeline.statistics.failures == 0, "cancellation is not a failure")
    }

    // MARK: Retries and errors

    @Test func twoServiceUnavailableThenSuccessTakesThreeGETsWithGrowingPauses() async throws {
        server.route("/photo.jpg", .init(status: 503), .init(status: 503), .init(body: photo))
        let pipeline = try makePipeline()
        let retries = Mutex([Duration]())
        let started = ContinuousClock.now
        let thumbnail = try await pipeline.thumbnail(for: request("/photo.jpg")) { progress in
            if case let .retrying(_, _, delay, _) = progress { retries.withLock { $0.append(delay) } }
        }
        #expect(thumbnail.width == 256)
        #expect(server.requestCount("/photo.jpg") == 3)
        #expect(retries.withLock { $0 } == [.milliseconds(50), .milliseconds(100)], "exponential backoff")
        #expect(ContinuousClock.now - started >= .milliseconds(150), "the pauses were taken")
        #expect(pipeline.statistics.retries == 2 && pipeline.statistics.failures == 0)
    }

    @Test func tooManyRequestsWaitsForRetryAfter() async throws {
        server.route("/photo.jpg", .init(status: 429, headers: ["Retry-After": "1"]), .init(body: photo))
        let pipeline = try makePipeline()
        let messages = Mutex([String]())
        let started = ContinuousClock.now
        _ = try await pipeline.thumbnail(for: request("/photo.jpg")) { progress in
            if let message = progress.message { messages.withLock { $0.append(message) } }
        }
        #expect(ContinuousClock.now - started >= .seconds(1))
        #expect(server.requestCount("/photo.jpg") == 2)
        #expect(messages.withLock { $0 }.first?.hasPrefix("retrying in 1.0 s (attempt 2 of 3): ") == true)
    }

    @Test func notFoundIsOneGETAndATypedError() async throws {
        server.route("/missing.jpg", .init(status: 404))
        let pipeline = try makePipeline()
        await #expect {
            try await pipeline.thumbnail(for: self.request("/missing.jpg"))
        } throws: {
            ThumbnailError.matches($0, .fetch, DataLoadingError.httpStatus(self.server.url("/missing.jpg"), status: 404, retryAfter: nil))
        }
        #expect(server.requestCount("/missing.jpg") == 1)
        #expect(storedEntries == 0 && pipeline.statistics.failures == 1)
    }

    @Test func aCorruptBodyIsATypedErrorAndNothingIsStored() async throws {
        var corrupt = photo
        for index in stride(from: 2_000, to: corrupt.count, by: 97) { corrupt[index] = 0xFF }
        corrupt[4_000] = 0xD9  // an end-of-image marker inside the entropy-coded data
        server.route("/corrupt.jpg", .init(body: Array(corrupt.prefix(200_000)) + [0x00, 0x11, 0xFF, 0x01]))
        server.route("/notanimage.jpg", .init(body: Array("<html>a login page</html>".utf8)))
        let pipeline = try makePipeline()
        for path in ["/corrupt.jpg", "/notanimage.jpg"] {
            do {
                _ = try await pipeline.thumbnail(for: request(path))
                Issue.record("\(path) decoded")
            } catch let error as ThumbnailError {
                #expect(error.kind == .decode)
                #expect((error.underlying as? ThumbnailDecodingError)?.message.isEmpty == false)
            }
            #expect(server.requestCount(path) == 1, "a corrupt image is never retried")
        }
        #expect(storedEntries == 0 && pipeline.memoryStatistics.count == 0)
        #expect(try await eventually { self.filesInCache.isEmpty }, "\(filesInCache)")
    }

    @Test func aDroppedConnectionStoresNothingAndALaterRequestDownloadsAgain() async throws {
        var cut = TestHTTPServer.Behavior(body: photo)
        cut.dropAfter = 300_000
        server.route("/photo.jpg", cut, .init(body: photo))
        let pipeline = try makePipeline(retryPolicy: .never)
        do {
            _ = try await pipeline.thumbnail(for: request("/photo.jpg"))
            Issue.record("a cut body decoded")
        } catch {
            #expect(ThumbnailError.matches(error, .fetch, DataLoadingError.truncated(server.url("/photo.jpg"), received: 300_000,
                                                                                     expected: photo.count)))
        }
        #expect(storedEntries == 0 && filesInCache.isEmpty, "\(filesInCache)")
        let thumbnail = try await pipeline.thumbnail(for: request("/photo.jpg"))
        #expect(thumbnail.width == 256 && server.requestCount("/photo.jpg") == 2)
    }

    /// A JPEG damaged where it was made, sent whole (its length matched), is shown as browsers draw
    /// it and cached like any other image; the same bytes cut short by the connection are a broken
    /// download, and nothing of them is kept.
    @Test func aJPEGDamagedAtItsSourceIsShownAndCachedWhenItsTransferWasWhole() async throws {
        let damaged = try DamagedJPEG.make(fromTestImage: "jpeg-baseline-444-gradient-256x192.jpg").damaged
        var cut = TestHTTPServer.Behavior(body: damaged)
        cut.dropAfter = damaged.count - 100
        server.route("/cut.jpg", cut)
        server.route("/damaged.jpg", .init(body: damaged))
        let pipeline = try makePipeline(retryPolicy: .never)

        await #expect {
            try await pipeline.thumbnail(for: self.request("/cut.jpg", size: 64))
        } throws: {
            ThumbnailError.matches($0, .fetch, DataLoadingError.truncated(self.server.url("/cut.jpg"), received: damaged.count - 100,
                                                                          expected: damaged.count))
        }
        #expect(storedEntries == 0)
        #expect(try await eventually { self.filesInCache.isEmpty }, "\(filesInCache)")

        let thumbnail = try await pipeline.thumbnail(for: request("/damaged.jpg", size: 64))
        #expect(thumbnail.width == 64 && thumbnail.height == 48)
        #expect(thumbnail.report?.isDamaged == true)
        #expect(try await eventually { self.storedEntries == 2 }, "the original and the thumbnail")
        pipeline.removeAllFromMemory()
        _ = try await pipeline.thumbnail(for: request("/damaged.jpg", size: 64))
        #expect(server.requestCount("/damaged.jpg") == 1 && pipeline.statistics.thumbnailDiskHits == 1)
    }

    @Test func aDroppedConnectionIsRetriedLikeAReset() async throws {
        var cut = TestHTTPServer.Behavior(body: photo)
        cut.dropAfter = 300_000
        server.route("/photo.jpg", cut, .init(body: photo))
        let pipeline = try makePipeline()
        #expect(try await pipeline.thumbnail(for: request("/photo.jpg")).width == 256)
        #expect(server.requestCount("/photo.jpg") == 2 && pipeline.statistics.retries == 1)
    }

    @Test func anAnnouncedTwoHundredMegabytesIsRefusedBeforeTheBody() async throws {
        var huge = TestHTTPServer.Behavior(body: photo)
        huge.claimedLength = 200_000_000
        huge.trickle = (chunk: 16 * 1024, pause: .milliseconds(30))
        server.route("/huge.jpg", huge)
        let pipeline = try makePipeline()
        let bodyBytes = Mutex(0)
        await #expect {
            try await pipeline.thumbnail(for: self.request("/huge.jpg")) { progress in
                if case let .fetching(transfer) = progress { bodyBytes.withLock { $0 += transfer.receivedBytes } }
            }
        } throws: {
            ThumbnailError.matches($0, .fetch, DataLoadingError.tooLarge(self.server.url("/huge.jpg"), bytes: 200_000_000,
                                                                         limit: 50_000_000))
        }
        #expect(bodyBytes.withLock { $0 } == 0 && server.requestCount("/huge.jpg") == 1)
    }

    /// A content-negotiating CDN picks the format it sends from `Accept`: the pipeline's downloads
    /// name exactly the formats the decoder reads; a plain load (a feed) accepts anything.
    @Test func aDownloadAcceptsExactlyTheFormatsTheDecoderReads() async throws {
        server.route("/photo.jpg", .init(body: photo))
        _ = try await makePipeline().thumbnail(for: request("/photo.jpg"))
        #expect(server.receivedRequests.last?.headers["accept"]
                == "image/jpeg, image/png, image/webp, image/gif, image/avif, image/heic, image/jxl")
        _ = try await HTTPDataLoader().loadBytes(DataRequest(url: server.url("/photo.jpg")))
        #expect(server.receivedRequests.last?.headers["accept"] == "*/*")
    }

    // MARK: Cache tiers

    @Test func theCacheTiersAnswerBeforeTheNetwork() async throws {
        server.route("/photo.jpg", .init(body: photo))
        let pipeline = try makePipeline()
        // Returns once the copies are stored, as a warm-up does.
        _ = try await pipeline.thumbnails(of: server.url("/photo.jpg"), sizes: [.fit(256)])
        #expect(server.requestCount("/photo.jpg") == 1)

        _ = try await pipeline.thumbnail(for: request("/photo.jpg"))
        #expect(server.requestCount("/photo.jpg") == 1 && pipeline.statistics.memoryHits == 1)

        pipeline.removeAllFromMemory()
        let fromDisk = try await pipeline.thumbnail(for: request("/photo.jpg"))
        #expect(fromDisk.width == 256 && fromDisk.height == 170)
        #expect(server.requestCount("/photo.jpg") == 1 && pipeline.statistics.thumbnailDiskHits == 1)

        // Another size: no thumbnail of it anywhere, but the original is on disk.
        _ = try await pipeline.thumbnail(for: request("/photo.jpg", size: 100))
        #expect(server.requestCount("/photo.jpg") == 1 && pipeline.statistics.originalDiskHits == 1)
        #expect(pipeline.statistics.decodes == 2)

        pipeline.removeAllFromMemory()
        try disk.removeAll()
        _ = try await pipeline.thumbnail(for: request("/photo.jpg"))
        #expect(server.requestCount("/photo.jpg") == 2)
    }

    @Test func aNewPipelineOnTheSameDirectoryStartsFromTheDisk() async throws {
        server.route("/photo.jpg", .init(body: photo))
        _ = try await makePipeline().thumbnails(of: server.url("/photo.jpg"), sizes: [.fit(256)])
        let restarted = ThumbnailPipeline(configuration: .init(
            dataLoader: try HTTPDataLoader(), diskCache: try DiskCache(directory: temporary.path("cache"))))
        _ = try await restarted.thumbnail(for: request("/photo.jpg"))
        #expect(server.requestCount("/photo.jpg") == 1 && restarted.statistics.thumbnailDiskHits == 1)
    }

    @Test func revalidationCostsNoBodyWhenTheOriginalIsCurrent() async throws {
        var tagged = TestHTTPServer.Behavior(body: photo)
        tagged.etag = "\"v1\""
        server.route("/photo.jpg", tagged)
        let pipeline = try makePipeline()
        _ = try await pipeline.thumbnails(of: server.url("/photo.jpg"), sizes: [.fit(256)])

        _ = try await pipeline.thumbnail(for: request("/photo.jpg", policy: .revalidate))
        #expect(server.receivedRequests.last?.headers["if-none-match"] == "\"v1\"")
        #expect(pipeline.statistics.notModified == 1 && pipeline.statistics.downloads == 1)
        #expect(pipeline.statistics.decodes == 1, "the stored thumbnail was still good")

        tagged.etag = "\"v2\""
        server.route("/photo.jpg", tagged)
        _ = try await pipeline.thumbnails(of: server.url("/photo.jpg"), sizes: [.fit(256)], cachePolicy: .revalidate)
        #expect(pipeline.statistics.downloads == 2 && pipeline.statistics.decodes == 2)
        #expect(try disk.entry(forKey: server.url("/photo.jpg"), in: .originals)?.metadata.etag == "\"v2\"")
    }

    // MARK: Progress and priority

    @Test func progressIsReportedInOrderEndingAtOneHundredThenDecoding() async throws {
        server.route("/photo.jpg", slowPhoto())
        let events = Mutex([ThumbnailProgress]())
        _ = try await makePipeline().thumbnail(for: request("/photo.jpg")) { event in events.withLock { $0.append(event) } }
        let all = events.withLock { $0 }
        let percents = all.compactMap { event -> Double? in
            if case let .fetching(transfer) = event { return transfer.percent }
            return nil
        }
        // How many reports there are depends on how the chunks meet the socket reads (a busy
        // machine merges them); that some fall between 0 and 100 does not.
        #expect(percents == percents.sorted() && percents.contains { $0 > 0 && $0 < 100 })
        #expect(percents.first == 0 && percents.last == 100)
        #expect(all.last == .decoding)
    }

    @Test func visibleRequestsAreFetchedBeforePrefetchesAndAJoinRaisesAQueuedPrefetch() async throws {
        let gate = ResponseGate()
        var blocker = TestHTTPServer.Behavior(body: photo)
        blocker.gate = gate
        server.route("/blocker.jpg", blocker)
        for path in ["/prefetch-a.jpg", "/prefetch-b.jpg", "/visible.jpg"] { server.route(path, .init(body: photo)) }
        let pipeline = try makePipeline(downloads: 1)
        let holder = Task { try await pipeline.thumbnail(for: self.request("/blocker.jpg")) }
        #expect(try await eventually { self.server.requestCount("/blocker.jpg") == 1 })

        let prefetchA = Task { try await pipeline.thumbnail(for: self.request("/prefetch-a.jpg", priority: .prefetch)) }
        #expect(try await eventually { pipeline.waitingDownloads == 1 })
        let prefetchB = Task { try await pipeline.thumbnail(for: self.request("/prefetch-b.jpg", priority: .prefetch)) }
        #expect(try await eventually { pipeline.waitingDownloads == 2 })
        let visible = Task { try await pipeline.thumbnail(for: self.request("/visible.jpg", priority: .visible)) }
        #expect(try await eventually { pipeline.waitingDownloads == 3 })
        // Row B scrolls into view while its prefetch waits: it moves ahead of A.
        let rowB = Task { try await pipeline.thumbnail(for: self.request("/prefetch-b.jpg", priority: .visible)) }
        #expect(try await eventually { pipeline.waiterCount(for: self.request("/prefetch-b.jpg")) == 2 })
        gate.open()

        for task in [holder, prefetchA, prefetchB, visible, rowB] { _ = try await task.value }
        let order = server.receivedRequests.map(\.path)
        // Visible work first; the raised B keeps its place by age among the visible ones.
        #expect(order == ["/blocker.jpg", "/prefetch-b.jpg", "/visible.jpg", "/prefetch-a.jpg"])
    }
}
