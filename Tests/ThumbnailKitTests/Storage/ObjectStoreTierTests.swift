import TestSupport
import Testing
import ThumbnailHTTP
@testable import ThumbnailKit

/// The object store as a tier of the pipeline, against a real S3-compatible
/// server on loopback: what one machine makes, another reads without fetching;
/// a damaged object is never served; an unreachable store costs nothing but its copies.
@Suite(.enabled(if: S3TestStore.isAvailable, "needs python3-swift and memcached: \(S3TestStore.unavailableReason ?? "")"))
final class ObjectStoreTierTests {
    let server: TestHTTPServer
    let temporary: TemporaryDirectory
    let location: String
    let environment: [String: String]
    static let photoName = "photo-aitzgorri-baseline-3000x1998.jpg"

    init() async throws {
        server = try TestHTTPServer()
        temporary = try TemporaryDirectory()
        server.route("/a.jpg", .init(body: try Fixtures.bytes(ofTestImage: Self.photoName)))
        server.route("/small.jpg", .init(body: try Fixtures.bytes(ofTestImage: "jpeg-exif-none-96x64.jpg")))
        let store = try await S3TestStore.shared()
        location = "s3://\(try await store.makeBucket())/fleet"
        environment = store.environment
    }

    deinit { server.stop() }

    func makeStore(location: String? = nil, environment: [String: String]? = nil) throws -> S3ObjectStore {
        try S3ObjectStore(configuration: .fromEnvironment(location: location ?? self.location,
                                                           environment: environment ?? self.environment))
    }

    /// A pipeline of its own machine: its own disk cache, the shared store.
    func makePipeline(disk: String, store: (any ObjectStore)? = nil, keepsOriginals: Bool = false) throws -> ThumbnailPipeline {
        ThumbnailPipeline(configuration: .init(dataLoader: try HTTPDataLoader(),
                                               diskCache: try DiskCache(directory: temporary.path(disk)),
                                               objectStore: try store ?? makeStore(), keepsOriginalsInObjectStore: keepsOriginals))
    }

    func objectKey(_ url: String, _ size: ThumbnailSize) -> String {
        CacheKeys(appliesOrientation: true).thumbnailInStore(ThumbnailKey(url: url, size: size))
    }

    @Test func aFillAnotherMachineReadsFromTheStoreIsTheStoredThumbnailUnchanged() async throws {
        // 96×64 filling 100×300 is its centred 21×64 crop, which a second fill would cut to 21×63.
        let url = server.url("/small.jpg"), size = ThumbnailSize.fill(width: 100, height: 300)
        let made = try await makePipeline(disk: "one").thumbnails(of: url, sizes: [size])
        #expect(made.storageFailure == nil)
        let other = try makePipeline(disk: "two")
        let read = try await other.thumbnail(for: ThumbnailRequest(url: url, size: size))
        #expect(other.statistics.objectStoreHits == 1 && other.statistics.decodes == 0)
        #expect((read.width, read.height) == (21, 64))
        let object = try #require(try await makeStore().object(forKey: objectKey(url, size)))
        #expect(object.metadata["size"] == "fill-100x300")
        let stored = try await ThumbnailDecoder(size: .original).decode(object.bytes)
        #expect(read.maximumDifference(from: stored) == 0)
    }

    @Test func whatOneMachineMadeAnotherReadsFromTheStoreWithoutFetchingAndKeepsOnItsDisk() async throws {
        let url = server.url("/a.jpg")
        let made = try await makePipeline(disk: "one").thumbnails(of: url, sizes: [.fit(64), .fit(128)])
        #expect(made.storageFailure == nil)
        #expect(server.requestCount("/a.jpg") == 1)

        let other = try makePipeline(disk: "two")
        let read = try await other.thumbnail(for: ThumbnailRequest(url: url, size: .fit(128)))
        #expect(other.statistics.objectStoreHits == 1)
        #expect(other.statistics.downloads == 0 && other.statistics.decodes == 0)
        #expect(server.requestCount("/a.jpg") == 1)
        #expect(read.source == made.thumbnails[.fit(128)]?.source && (read.width, read.height) == (128, 85))

        // Its disk tier has it now (once the write that follows the answer is done): the next
        // process on that machine asks nobody.
        await other.waitForAbandonedWork()
        let restarted = try makePipeline(disk: "two")
        _ = try await restarted.thumbnail(for: ThumbnailRequest(url: url, size: .fit(128)))
        #expect(restarted.statistics.thumbnailDiskHits == 1 && restarted.statistics.objectStoreHits == 0)
    }

    @Test func anObjectWhoseBytesDoNotMatchItsChecksumIsNeverServedAndIsReplaced() async throws {
        let url = server.url("/a.jpg")
        _ = try await makePipeline(disk: "one").thumbnails(of: url, sizes: [.fit(64)])
        let store = try makeStore()
        let key = objectKey(url, .fit(64))
        let good = try #require(try await store.object(forKey: key))
        var damaged = good.bytes
        damaged[damaged.count / 2] ^= 0xFF
        try await store.put(StoredObject(bytes: damaged, metadata: good.metadata), forKey: key)

        let other = try makePipeline(disk: "two")
        _ = try await other.thumbnails(of: url, sizes: [.fit(64)])
        #expect(other.statistics.objectStoreHits == 0 && other.statistics.decodes == 1)
        #expect(try await store.object(forKey: key)?.bytes == good.bytes)
    }

    @Test func twoMachinesMakingOneThumbnailWriteTheSameBytes() async throws {
        let url = server.url("/a.jpg")
        let otherLocation = "s3://\(try await S3TestStore.shared().makeBucket())/fleet"
        _ = try await makePipeline(disk: "one").thumbnails(of: url, sizes: [.fit(96)])
        _ = try await makePipeline(disk: "two", store: makeStore(location: otherLocation)).thumbnails(of: url, sizes: [.fit(96)])
        let key = objectKey(url, .fit(96))
        let first = try #require(try await makeStore().object(forKey: key))
        let second = try #require(try await makeStore(location: otherLocation).object(forKey: key))
        #expect(first == second)
    }

    @Test func anUnreachableStoreLeavesTheThumbnailAndSaysItsCopyIsNotStored() async throws {
        var environment = environment
        environment["AWS_ENDPOINT_URL"] = "http://127.0.0.1:1"
        let pipeline = try makePipeline(disk: "one", store: makeStore(environment: environment))
        let made = try await pipeline.thumbnails(of: server.url("/a.jpg"), sizes: [.fit(64)])
        #expect(made.thumbnails[.fit(64)] != nil && pipeline.statistics.downloads == 1)
        let failure = try #require(made.storageFailure as? S3Error)
        guard case .unreachable = failure else { Issue.record("expected unreachable, got \(failure)"); return }
    }

    @Test func anOriginalKeptInTheStoreMakesANewSizeOnAnotherMachineWithoutTheOrigin() async throws {
        let url = server.url("/a.jpg")
        _ = try await makePipeline(disk: "one", keepsOriginals: true).thumbnails(of: url, sizes: [.fit(64)])
        let key = CacheKeys(appliesOrientation: true).originalInStore(url)
        let stored = try #require(try await makeStore().object(forKey: key))
        #expect(stored.bytes == (try Fixtures.bytes(ofTestImage: Self.photoName)))
        #expect(stored.metadata["sha256"] == SHA256.hex(SHA256.digest(stored.bytes)))

        let other = try makePipeline(disk: "two", keepsOriginals: true)
        let made = try await other.thumbnail(for: ThumbnailRequest(url: url, size: .fit(200)))
        #expect((made.width, made.height) == (200, 133))
        #expect(other.statistics.objectStoreOriginalHits == 1 && other.statistics.downloads == 0)
        #expect(server.requestCount("/a.jpg") == 1)
        // Kept on that machine's disk too: the next size there reads nothing from the store.
        await other.waitForAbandonedWork()
        let restarted = try makePipeline(disk: "two", keepsOriginals: true)
        _ = try await restarted.thumbnail(for: ThumbnailRequest(url: url, size: .fit(100)))
        #expect(restarted.statistics.originalDiskHits == 1 && restarted.statistics.objectStoreOriginalHits == 0)
    }

    @Test func anOriginalWhoseBytesDoNotMatchItsChecksumIsFetchedFromTheOriginInstead() async throws {
        let url = server.url("/a.jpg")
        _ = try await makePipeline(disk: "one", keepsOriginals: true).thumbnails(of: url, sizes: [.fit(64)])
        let store = try makeStore()
        let key = CacheKeys(appliesOrientation: true).originalInStore(url)
        let good = try #require(try await store.object(forKey: key))
        var damaged = good.bytes
        damaged[damaged.count - 100] ^= 0x01
        try await store.put(StoredObject(bytes: damaged, metadata: good.metadata), forKey: key)

        let other = try makePipeline(disk: "two", keepsOriginals: true)
        _ = try await other.thumbnail(for: ThumbnailRequest(url: url, size: .fit(200)))
        #expect(other.statistics.objectStoreOriginalHits == 0 && other.statistics.downloads == 1)
        #expect(server.requestCount("/a.jpg") == 2)
    }
}
