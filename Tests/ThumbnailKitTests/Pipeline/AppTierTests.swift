import Synchronization
import TestSupport
import Testing
import ThumbnailHTTP
import ThumbnailKit  // not @testable: an app's tier sees only public API

/// A tier an app writes, placed by ``ThumbnailPipeline/init(configuration:rendering:fetching:)``
/// behind the disk tiers and in front of the rendering: it receives every
/// request the disk misses, and none the disk answers.
@Suite final class AppTierTests {
    let server: TestHTTPServer
    let temporary: TemporaryDirectory

    init() throws {
        server = try TestHTTPServer()
        temporary = try TemporaryDirectory()
        let photo = try Fixtures.bytes(ofTestImage: "photo-friends-portrait-1000x1502.jpg")
        for path in ["/a.jpg", "/b.jpg", "/c.jpg"] { server.route(path, .init(body: photo)) }
    }

    deinit { server.stop() }

    /// Writes down every request it is asked, then asks the tier behind it.
    struct RecordingTier: ThumbnailProviding {
        let next: any ThumbnailProviding
        let recorder: Recorder

        func cachedThumbnail(for request: ThumbnailRequest) -> Thumbnail? { next.cachedThumbnail(for: request) }

        func thumbnail(for request: ThumbnailRequest,
                       progress: (@Sendable (ThumbnailProgress) -> Void)?) async throws -> Thumbnail {
            recorder.asked.withLock { $0.append(request.key) }
            return try await next.thumbnail(for: request, progress: progress)
        }
    }

    final class Recorder: Sendable {
        let asked = Mutex<[ThumbnailKey]>([])
        var keys: Set<ThumbnailKey> { Set(asked.withLock { $0 }) }
        var count: Int { asked.withLock { $0.count } }
    }

    /// A pipeline on the test's disk cache with a ``RecordingTier`` behind its disk tiers.
    func makePipeline(recording recorder: Recorder) throws -> ThumbnailPipeline {
        let configuration = ThumbnailPipeline.Configuration(
            dataLoader: try HTTPDataLoader(), diskCache: try DiskCache(directory: temporary.path("cache")))
        return ThumbnailPipeline(configuration: configuration,
                                 rendering: { RecordingTier(next: $0, recorder: recorder) })
    }

    func key(_ path: String, _ size: ThumbnailSize) -> ThumbnailKey { ThumbnailKey(url: server.url(path), size: size) }

    @Test func itReceivesEveryRequestTheDiskMissesAndNoneItAnswers() async throws {
        let first = Recorder()
        let pipeline = try makePipeline(recording: first)
        for path in ["/a.jpg", "/b.jpg", "/c.jpg"] {
            _ = try await pipeline.thumbnails(of: server.url(path), sizes: [.fit(64), .fit(128)])
        }
        #expect(first.keys == Set(["/a.jpg", "/b.jpg", "/c.jpg"].flatMap { [key($0, .fit(64)), key($0, .fit(128))] }))
        #expect(first.count == 6, "each request once")
        await pipeline.waitForAbandonedWork()

        // Another process on the same disk: the stored sizes never reach the tier, a new size does.
        let second = Recorder()
        let restarted = try makePipeline(recording: second)
        for path in ["/a.jpg", "/b.jpg", "/c.jpg"] {
            _ = try await restarted.thumbnail(for: ThumbnailRequest(url: server.url(path), size: .fit(64)))
        }
        #expect(second.count == 0)
        _ = try await restarted.thumbnail(for: ThumbnailRequest(url: server.url("/b.jpg"), size: .fit(96)))
        #expect(second.keys == [key("/b.jpg", .fit(96))] && second.count == 1)
        #expect(restarted.statistics.thumbnailDiskHits == 3 && restarted.statistics.downloads == 0)
    }

    /// Answers every request with its own bundled picture, asking nothing behind it.
    struct BundledTier: ThumbnailProviding {
        let bundled: [UInt8]
        func cachedThumbnail(for request: ThumbnailRequest) -> Thumbnail? { nil }
        func thumbnail(for request: ThumbnailRequest,
                       progress: (@Sendable (ThumbnailProgress) -> Void)?) async throws -> Thumbnail {
            try await ThumbnailDecoder(size: request.size).decode(bundled)
        }
    }

    @Test func aTierThatAnswersInPlaceOfTheRenderingIsKeptInMemoryAndNothingIsFetched() async throws {
        let bundled = try NumberedImage.png(7)
        let pipeline = ThumbnailPipeline(
            configuration: .init(dataLoader: try HTTPDataLoader(), diskCache: try DiskCache(directory: temporary.path("cache"))),
            rendering: { _ in BundledTier(bundled: bundled) })
        let request = ThumbnailRequest(url: server.url("/a.jpg"), size: .fit(32))
        let thumbnail = try await pipeline.thumbnail(for: request)
        #expect(NumberedImage.number(in: thumbnail) == 7)
        #expect(pipeline.cachedThumbnail(for: request).flatMap(NumberedImage.number(in:)) == 7)
        #expect(server.requestCount("/a.jpg") == 0 && pipeline.statistics.downloads == 0)
    }

    /// Holds the request for `late` until the request for `early` has come back through it.
    struct LateSizeTier: ThumbnailProviding {
        let next: any ThumbnailProviding
        let early: ThumbnailSize, late: ThumbnailSize
        let earlyDone = AsyncStream.makeStream(of: Void.self)

        func cachedThumbnail(for request: ThumbnailRequest) -> Thumbnail? { nil }

        func thumbnail(for request: ThumbnailRequest,
                       progress: (@Sendable (ThumbnailProgress) -> Void)?) async throws -> Thumbnail {
            if request.size == late { for await _ in earlyDone.stream { break } }
            let thumbnail = try await next.thumbnail(for: request, progress: progress)
            if request.size == early { earlyDone.continuation.finish() }
            return thumbnail
        }
    }

    @Test func aSizeAskedTogetherThatArrivesAfterTheDecodeEndedIsHandedWhatItMade() async throws {
        let pipeline = ThumbnailPipeline(
            configuration: .init(dataLoader: try HTTPDataLoader(), diskCache: try DiskCache(directory: temporary.path("cache"))),
            rendering: { LateSizeTier(next: $0, early: .fit(64), late: .fit(128)) })
        let made = try await pipeline.thumbnails(of: server.url("/a.jpg"), sizes: [.fit(64), .fit(128)])
        #expect(made.thumbnails[.fit(128)]?.height == 128 && made.thumbnails[.fit(64)]?.height == 64)
        // One rendition made both: one download, one decode per size, each kept once.
        #expect(pipeline.statistics.downloads == 1 && pipeline.statistics.decodes == 2)
        #expect(server.requestCount("/a.jpg") == 1)
    }
}
