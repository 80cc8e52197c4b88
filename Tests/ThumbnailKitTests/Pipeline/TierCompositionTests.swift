import Synchronization
import TestSupport
import Testing
import ThumbnailHTTP
@testable import ThumbnailKit

/// The tiers as composed by the pipeline: memory counted once per request,
/// source facts whichever tier answers, stored copies written after the
/// waiters have their thumbnail and before the work is reported done.
@Suite final class TierCompositionTests {
    let server: TestHTTPServer
    let temporary: TemporaryDirectory
    static let photoName = "photo-aitzgorri-baseline-3000x1998.jpg"

    init() throws {
        server = try TestHTTPServer()
        temporary = try TemporaryDirectory()
        let photo = try Fixtures.bytes(ofTestImage: Self.photoName)
        for path in ["/a.jpg", "/b.jpg", "/c.jpg"] { server.route(path, .init(body: photo)) }
    }

    deinit { server.stop() }

    func makePipeline(fetching: (any OriginalProviding) -> any OriginalProviding = { $0 }) throws -> ThumbnailPipeline {
        ThumbnailPipeline(configuration: .init(dataLoader: try HTTPDataLoader(),
                                               diskCache: try DiskCache(directory: temporary.path("cache"))),
                          fetching: fetching)
    }

    func request(_ path: String) -> ThumbnailRequest {
        ThumbnailRequest(url: server.url(path), size: .fit(64))
    }

    @Test func eachRequestLooksInMemoryOnceAndAPeekCountsItsHitButNeverAMiss() async throws {
        let pipeline = try makePipeline()
        for path in ["/a.jpg", "/b.jpg", "/c.jpg"] {
            #expect(pipeline.cachedThumbnail(for: request(path)) == nil)
            _ = try await pipeline.thumbnail(for: request(path))
        }
        #expect(pipeline.statistics.memoryMisses == 3 && pipeline.statistics.memoryHits == 0)
        #expect(pipeline.memoryStatistics.misses == 3 && pipeline.memoryStatistics.hits == 0)

        // A row finding its thumbnail at once is a request answered from memory.
        #expect(pipeline.cachedThumbnail(for: request("/a.jpg")) != nil)
        #expect(pipeline.statistics.memoryMisses == 3 && pipeline.statistics.memoryHits == 1)
        #expect(pipeline.memoryStatistics.misses == 3 && pipeline.memoryStatistics.hits == 1)
        _ = try await pipeline.thumbnail(for: request("/a.jpg"))
        #expect(pipeline.statistics.memoryMisses == 3 && pipeline.statistics.memoryHits == 2)
        #expect(pipeline.memoryStatistics.misses == 3 && pipeline.memoryStatistics.hits == 2)
    }

    @Test func aThumbnailFromTheDiskTierHasTheOriginalsFactsAndNoDecodeReport() async throws {
        let made = try #require(try await makePipeline().thumbnails(of: server.url("/a.jpg"), sizes: [.fit(64)])
            .thumbnails[.fit(64)])
        #expect(made.report != nil && (made.source.width, made.source.height) == (3000, 1998))

        let restarted = try makePipeline()
        let stored = try await restarted.thumbnail(for: request("/a.jpg"))
        #expect(restarted.statistics.thumbnailDiskHits == 1 && restarted.statistics.decodes == 0)
        #expect(stored.source == made.source && stored.report == nil)
        #expect((stored.width, stored.height) == (made.width, made.height))
    }

    /// /a.jpg made at 64 px by a pipeline that has stored it: its disk cache, the thumbnail's key and entry.
    func storedThumbnailOfA() async throws -> (DiskCache, String, DiskCacheEntry) {
        let pipeline = try makePipeline()
        _ = try await pipeline.thumbnails(of: server.url("/a.jpg"), sizes: [.fit(64)])
        let disk = try #require(pipeline.configuration.diskCache)
        let key = CacheKeys(appliesOrientation: true).thumbnailOnDisk(request("/a.jpg").key)
        return (disk, key, try #require(try disk.entry(forKey: key, in: .thumbnails)))
    }

    @Test func aStoredThumbnailWithoutSourceFactsIsMadeAgainFromTheStoredOriginal() async throws {
        let (disk, key, entry) = try await storedThumbnailOfA()
        // Rewritten as an older version stored it: the encoded file, no source facts.
        #expect(entry.metadata.source != nil)
        try disk.store(entry.bytes, forKey: key, in: .thumbnails, metadata: DiskCacheMetadata(url: server.url("/a.jpg")))

        let restarted = try makePipeline()
        let thumbnail = try await restarted.thumbnail(for: request("/a.jpg"))
        #expect(restarted.statistics.thumbnailDiskHits == 0 && restarted.statistics.originalDiskHits == 1)
        #expect((thumbnail.source.width, thumbnail.source.height) == (3000, 1998) && thumbnail.report != nil)
    }

    /// After an upgrade that draws the same original differently (colour profiles now applied),
    /// a thumbnail an earlier version stored is not served: it is made again from the stored original.
    @Test func aThumbnailStoredByAnEarlierRenderingIsMadeAgainFromTheStoredOriginal() async throws {
        let (disk, key, entry) = try await storedThumbnailOfA()
        // Moved to the key the version before rendering versions wrote, "URL#size" (removed first,
        // so that a key without the version would find it there).
        try disk.removeEntry(forKey: key, in: .thumbnails)
        try disk.store(entry.bytes, forKey: "\(server.url("/a.jpg"))#\(ThumbnailSize.fit(64))", in: .thumbnails,
                       metadata: entry.metadata)

        let restarted = try makePipeline()
        _ = try await restarted.thumbnail(for: request("/a.jpg"))
        #expect(restarted.statistics.thumbnailDiskHits == 0 && restarted.statistics.originalDiskHits == 1)
        #expect(restarted.statistics.decodes == 1)
    }

    @Test func aWaiterHasItsThumbnailWhileTheCopiesAreHeldAndAWarmUpReturnsOnlyOnceTheyAreStored() async throws {
        let (gate, open) = AsyncStream<Void>.makeStream()
        let pipeline = try makePipeline { HeldKeep(next: $0, gate: gate) }
        let url = server.url("/a.jpg")

        let thumbnail = try await pipeline.thumbnail(for: request("/a.jpg"))
        #expect(thumbnail.width == 64)
        #expect(pipeline.stores.copiesOnDisk(of: url, sizes: [.fit(64)]) == StoredCopies(hasOriginal: false, thumbnailSizes: []))

        let warmReturned = Mutex(false)
        let warm = Task {
            defer { warmReturned.withLock { $0 = true } }
            return try await pipeline.thumbnails(of: url, sizes: [.fit(64)])
        }
        try await Task.sleep(for: .milliseconds(200))
        #expect(!warmReturned.withLock { $0 }, "the warm-up returned while its copies were still held")
        open.finish()
        let made = try await warm.value
        #expect(made.storageFailure == nil)
        #expect(pipeline.stores.copiesOnDisk(of: url, sizes: [.fit(64)]) == StoredCopies(hasOriginal: true, thumbnailSizes: [.fit(64)]))
    }
}

/// A tier of the test's in front of the fetch: keeps what it brings only once `gate` finishes.
private struct HeldKeep: OriginalProviding {
    let next: any OriginalProviding
    let gate: AsyncStream<Void>

    func original(for request: OriginalRequest) async throws -> Original {
        var original = try await next.original(for: request)
        let below = original.keep
        original.keep = { [gate] in
            for await _ in gate {}
            try await below?()
        }
        return original
    }
}
