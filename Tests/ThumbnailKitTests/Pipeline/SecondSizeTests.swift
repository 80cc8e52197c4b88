import Synchronization
import TestSupport
import Testing
import ThumbnailHTTP
@testable import ThumbnailKit

/// A second size of one image asked for just after the first was answered, while the first's
/// stored copies are still being written (the original's commit to disk comes after its upload to
/// the store): the second rendition waits for them and finds the original on disk, so the image is
/// fetched once. A fleet replica asked for two sizes of one image at once fetched it twice in one
/// run out of two before this.
@Suite struct SecondSizeTests {
    /// An object store that holds nothing and whose every write waits until the test releases it.
    final class HeldStore: ObjectStore {
        let released = Mutex(false)
        let writesStarted = Mutex(0)

        func object(forKey key: String) async throws -> StoredObject? { nil }
        func metadata(forKey key: String) async throws -> [String: String]? { nil }
        func put(_ object: StoredObject, forKey key: String) async throws {
            writesStarted.withLock { $0 += 1 }
            while !released.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        }
    }

    @Test func aSecondSizeAskedWhileTheFirstsCopiesAreWrittenFetchesTheImageOnce() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/a.jpg", .init(body: try Fixtures.bytes(ofTestImage: "jpeg-exif-none-96x64.jpg")))
        let temporary = try TemporaryDirectory()
        let store = HeldStore()
        let pipeline = ThumbnailPipeline(configuration: .init(
            dataLoader: try HTTPDataLoader(), diskCache: try DiskCache(directory: temporary.path("cache")),
            objectStore: store, keepsOriginalsInObjectStore: true))
        let url = server.url("/a.jpg")
        _ = try await pipeline.thumbnail(for: ThumbnailRequest(url: url, size: .fit(64)))
        // The original's upload is held, and its commit to disk waits behind it.
        #expect(try await eventually { store.writesStarted.withLock { $0 } >= 1 })
        let second = Task { try await pipeline.thumbnail(for: ThumbnailRequest(url: url, size: .fit(32))) }
        try await Task.sleep(for: .milliseconds(300))
        store.released.withLock { $0 = true }
        let thumbnail = try await second.value
        #expect((thumbnail.width, thumbnail.height) == (32, 21))
        #expect(server.requestCount("/a.jpg") == 1)
    }
}
