import TestSupport
import Testing
import ThumbnailHTTP
@testable import ThumbnailKit

/// A thumbnail a rendition just made is encoded once: the bytes the keeper
/// writes to the disk tier are the ones a server takes for its response.
@Suite final class KeptEncodingTests {
    let server: TestHTTPServer
    let temporary: TemporaryDirectory

    init() throws {
        server = try TestHTTPServer()
        temporary = try TemporaryDirectory()
        server.route("/photo.jpg", .init(body: try Fixtures.bytes(ofTestImage: "photo-friends-portrait-1000x1502.jpg")))
    }

    deinit { server.stop() }

    @Test func theKeepersEncodingIsTheStoredBytesAndIsLetGoOnceWrittenAndTaken() async throws {
        let disk = try DiskCache(directory: temporary.path("cache"))
        let pipeline = ThumbnailPipeline(configuration: .init(dataLoader: try HTTPDataLoader(), diskCache: disk))
        let request = ThumbnailRequest(url: server.url("/photo.jpg"), size: .fit(128))
        let (thumbnail, kept) = try await pipeline.thumbnailAndKeptEncoding(for: request)
        let bytes = try #require(kept)
        #expect(bytes == (try ThumbnailEncoder().encode(thumbnail)))

        await pipeline.waitForAbandonedWork()
        let stored = try #require(try pipeline.stores.thumbnailsOnDisk?.encoded(request.key))
        #expect(stored.bytes == bytes)
        #expect(pipeline.tiers.keeper.encodings.heldCount == 0)

        // Read back from the disk tier: no rendition, nothing to share.
        let again = try await pipeline.thumbnailAndKeptEncoding(for: request)
        #expect(again.1 == nil)
    }

    @Test func nothingIsHeldWhenNothingKeepsThumbnails() async throws {
        let pipeline = ThumbnailPipeline(configuration: .init(dataLoader: try HTTPDataLoader()))
        let request = ThumbnailRequest(url: server.url("/photo.jpg"), size: .fit(128))
        let (_, kept) = try await pipeline.thumbnailAndKeptEncoding(for: request)
        #expect(kept == nil)
        #expect(pipeline.tiers.keeper.encodings.heldCount == 0)
    }

    @Test func aClaimHoldsAnEncodingPastItsWriteAndOnlyUntilItEnds() async throws {
        let thumbnail = try await ThumbnailDecoder(size: .fit(32)).decode(contentsOfFile: Fixtures.testImage("jpeg-exif-none-96x64.jpg"))
        let key = ThumbnailKey(url: "u", size: .fit(32))
        let encodings = KeptEncodings()
        encodings.claim(key)
        let claimed = encodings.start(thumbnail, of: key, with: ThumbnailEncoder())
        encodings.written([key: claimed.id])
        let taken = try #require(encodings.unclaim(key))
        let bytes = try await taken.value
        #expect(bytes == (try ThumbnailEncoder().encode(thumbnail)))
        #expect(encodings.heldCount == 0)

        let unclaimed = encodings.start(thumbnail, of: key, with: ThumbnailEncoder())
        encodings.written([key: unclaimed.id])
        #expect(encodings.heldCount == 0)
    }
}
