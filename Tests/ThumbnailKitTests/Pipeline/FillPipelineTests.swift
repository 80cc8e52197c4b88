import TestSupport
import Testing
import ThumbnailHTTP
@testable import ThumbnailKit

/// Fill sizes through the pipeline: keys of their own (fit keys unchanged),
/// a decode of their own, and read back from the disk tier as stored.
@Suite final class FillPipelineTests {
    let server: TestHTTPServer
    let temporary: TemporaryDirectory

    init() throws {
        server = try TestHTTPServer()
        temporary = try TemporaryDirectory()
        server.route("/photo.jpg", .init(body: try Fixtures.bytes(ofTestImage: "photo-aitzgorri-baseline-3000x1998.jpg")))
        server.route("/small.jpg", .init(body: try Fixtures.bytes(ofTestImage: "jpeg-exif-none-96x64.jpg")))
    }

    deinit { server.stop() }

    func makePipeline() throws -> ThumbnailPipeline {
        ThumbnailPipeline(configuration: .init(dataLoader: try HTTPDataLoader(),
                                               diskCache: try DiskCache(directory: temporary.path("cache"))))
    }

    @Test func fitKeysAreUnchangedAndAFillKeyDiffers() {
        let keys = CacheKeys(appliesOrientation: true)
        #expect(keys.thumbnailOnDisk(ThumbnailKey(url: "u", size: .fit(256))) == "u#256#r3")
        #expect(keys.thumbnailOnDisk(ThumbnailKey(url: "u", size: .fit(width: 320, height: 200))) == "u#320x200#r3")
        #expect(keys.thumbnailOnDisk(ThumbnailKey(url: "u", size: .fill(256))) == "u#fill-256#r3")
        #expect(keys.thumbnailOnDisk(ThumbnailKey(url: "u", size: .fill(width: 320, height: 200)))
            == "u#fill-320x200#r3")
        #expect(keys.thumbnailInStore(ThumbnailKey(url: "u", size: .fill(256)))
            != keys.thumbnailInStore(ThumbnailKey(url: "u", size: .fit(256))))
    }

    @Test func aFillAndAFitOfTheSameDimensionsAreDecodedApart() async throws {
        // Of 3000×1998 both come to 100×67; a fill is its own picture, so no shared decode.
        let pipeline = try makePipeline()
        let fill = ThumbnailSize.fill(width: 100, height: 67), fit = ThumbnailSize.fit(100)
        let made = try await pipeline.thumbnails(of: server.url("/photo.jpg"), sizes: [fill, fit]).thumbnails
        let filled = try #require(made[fill]), fitted = try #require(made[fit])
        #expect((filled.width, filled.height) == (100, 67) && (fitted.width, fitted.height) == (100, 67))
        #expect(pipeline.statistics.decodes == 2)
    }

    /// (path, size, the size it comes to): a cover cropped to the box, and a
    /// source smaller than the box whose crop a second fill would cut again
    /// (96×64 in 100×300 is 21×64; 21×64 in 100×300 would be 21×63).
    static let cases: [(String, ThumbnailSize, Int, Int)] = [
        ("/photo.jpg", .fill(width: 101, height: 57), 101, 57),
        ("/small.jpg", .fill(width: 100, height: 300), 21, 64),
    ]

    @Test(arguments: 0..<cases.count)
    func aFillReadBackFromTheDiskTierIsTheStoredThumbnailUnchanged(index: Int) async throws {
        let (path, size, width, height) = Self.cases[index]
        let first = try makePipeline()
        let made = try #require(try await first.thumbnails(of: server.url(path), sizes: [size]).thumbnails[size])
        #expect((made.width, made.height) == (width, height))

        let restarted = try makePipeline()
        let read = try await restarted.thumbnail(for: ThumbnailRequest(url: server.url(path), size: size))
        #expect(restarted.statistics.thumbnailDiskHits == 1 && restarted.statistics.decodes == 0)
        #expect((read.width, read.height) == (width, height))
        // The pixels are the stored file's own, neither cropped nor scaled again.
        let disk = try #require(restarted.configuration.diskCache)
        let entry = try #require(try disk.entry(forKey: CacheKeys(appliesOrientation: true)
            .thumbnailOnDisk(ThumbnailKey(url: server.url(path), size: size)), in: .thumbnails))
        let stored = try await ThumbnailDecoder(size: .original).decode(entry.bytes)
        #expect((stored.width, stored.height) == (width, height))
        #expect(read.maximumDifference(from: stored) == 0)
    }
}
