import Foundation
import TestSupport
import Testing
import ThumbnailHTTP
@testable import ThumbnailKit

/// A thumbnail made but refused by the disk: the pipeline returns it (and keeps
/// it in memory) with the reason it is not stored; a warm-up counts its image
/// as failed. The seam: every folder of the thumbnail tier is a file instead.
@Suite final class StorageFailureTests {
    let server: TestHTTPServer
    let temporary: TemporaryDirectory
    static let name = "jpeg-baseline-420-gradient-256x192.jpg"
    var url: String { server.url("/\(Self.name)") }

    init() throws {
        server = try TestHTTPServer()
        temporary = try TemporaryDirectory()
        server.route("/\(Self.name)", .init(body: try Fixtures.bytes(ofTestImage: Self.name)))
    }

    deinit { server.stop() }

    /// A pipeline on a cache whose thumbnail tier takes no entry when `thumbnailsRefused`.
    func makePipeline(thumbnailsRefused: Bool) throws -> ThumbnailPipeline {
        let cache = try DiskCache(directory: temporary.path("cache"))
        if thumbnailsRefused {
            for folder in 0..<256 {
                let path = "\(cache.directory)/thumbnails/\(String(format: "%02x", folder))"
                try Data().write(to: URL(fileURLWithPath: path))
            }
        }
        return ThumbnailPipeline(configuration: .init(dataLoader: try HTTPDataLoader(), diskCache: cache))
    }

    @Test func aThumbnailTheDiskRefusesIsReturnedWithTheReasonAndKeptInMemory() async throws {
        let pipeline = try makePipeline(thumbnailsRefused: true)
        let made = try await pipeline.thumbnails(of: url, sizes: [.fit(64)])
        #expect(made.thumbnails[.fit(64)]?.width == 64)
        let failure = try #require(made.storageFailure as? DiskCacheError)
        guard case let .notAFolder(path, symbolicLink: false) = failure else {
            Issue.record("expected the shard folder refused as not a folder, got \(failure)")
            return
        }
        #expect(path.hasPrefix("\(pipeline.configuration.diskCache!.directory)/thumbnails/"))
        #expect("\(failure)".contains("\(path) is not a folder"), "\(failure)")
        #expect(pipeline.cachedThumbnail(for: ThumbnailRequest(url: url, size: .fit(64))) != nil)
        #expect(pipeline.stores.copiesOnDisk(of: url, sizes: [.fit(64)]) == StoredCopies(hasOriginal: true, thumbnailSizes: []))

        // A list asking for another size gets it, the failure only logged.
        let listed = try await pipeline.thumbnail(for: ThumbnailRequest(url: url, size: .fit(32)))
        #expect(listed.width == 32)
    }

    @Test func aThumbnailStoredOnDiskCarriesNoFailure() async throws {
        let pipeline = try makePipeline(thumbnailsRefused: false)
        let made = try await pipeline.thumbnails(of: url, sizes: [.fit(64), .fit(32)])
        #expect(made.thumbnails.count == 2)
        #expect(made.storageFailure == nil)
    }

    @Test func aWarmUpCountsAnImageWhoseThumbnailIsNotStoredAsFailed() async throws {
        let warmer = CacheWarmer(pipeline: try makePipeline(thumbnailsRefused: true), sizes: [.fit(64)])
        let report = await warmer.warm([url])
        #expect(report.failures.map(\.url) == [url])
        let reason = report.failures.first?.reason ?? ""
        #expect(reason.hasPrefix("not stored: cache folder ") && reason.contains(" is not a folder"), "\(reason)")
        #expect(report.fetched == 0 && report.finished == 1)
    }
}
