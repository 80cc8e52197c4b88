import Synchronization
import TestSupport
import Testing
import ThumbnailHTTP
import ThumbnailKit

/// Warming the disk tiers from a list of URLs: one GET and one decode per
/// image for every size, nothing fetched or written the second time, and a
/// cancelled run that leaves nothing partial.
@Suite final class CacheWarmerTests {
    let server: TestHTTPServer
    let temporary: TemporaryDirectory
    static let names = ["photo-life-adam7-rgb-640x480.png", "photo-sunset-rgba-vignette-1024x683.png",
                        "jpeg-baseline-420-gradient-256x192.jpg", "photo-friends-portrait-1000x1502.jpg"]
    static let sizes: Set<ThumbnailSize> = [.fit(64), .fit(200)]

    init() throws {
        server = try TestHTTPServer()
        temporary = try TemporaryDirectory()
        for name in Self.names { server.route("/\(name)", .init(body: try Fixtures.bytes(ofTestImage: name))) }
    }

    deinit { server.stop() }

    var urls: [String] { Self.names.map { server.url("/\($0)") } }

    func makeWarmer(maximumInFlight: Int? = nil) throws -> CacheWarmer {
        let pipeline = ThumbnailPipeline(configuration: .init(
            dataLoader: try HTTPDataLoader(), diskCache: try DiskCache(directory: temporary.path("cache"))))
        return CacheWarmer(pipeline: pipeline, sizes: Self.sizes, maximumInFlight: maximumInFlight)
    }

    @Test func everyImageIsFetchedAndDecodedOnceForEverySize() async throws {
        let warmer = try makeWarmer()
        let report = await warmer.warm(urls + urls)  // duplicates are warmed once
        #expect(report.images == Self.names.count && report.fetched == Self.names.count && report.failures.isEmpty)
        #expect(report.thumbnailsWritten == Self.names.count * Self.sizes.count)
        #expect(warmer.pipeline.statistics.decodes == Self.names.count, "one decode serves both sizes")
        #expect(Self.names.allSatisfy { server.requestCount("/\($0)") == 1 })
        let expectedBytes = try Self.names.map { try Fixtures.bytes(ofTestImage: $0).count }.reduce(0, +)
        #expect(report.bytesDownloaded == expectedBytes)
        for url in urls {
            #expect(warmer.pipeline.storedCopies(of: url, sizes: Self.sizes) == StoredCopies(hasOriginal: true, thumbnailSizes: Self.sizes))
        }
    }

    @Test func aSecondRunFindsEverythingCachedAndReadsNothing() async throws {
        _ = try await makeWarmer().warm(urls)
        let again = try makeWarmer()
        let report = await again.warm(urls)
        #expect(report.alreadyCached == Self.names.count && report.fetched == 0 && report.thumbnailsWritten == 0)
        #expect(again.pipeline.statistics == PipelineStatistics(), "nothing fetched, read or decoded")
        #expect(Self.names.allSatisfy { server.requestCount("/\($0)") == 1 })
    }

    @Test func aNewSizeIsMadeFromTheStoredOriginal() async throws {
        _ = try await makeWarmer().warm(urls)
        let pipeline = ThumbnailPipeline(configuration: .init(
            dataLoader: try HTTPDataLoader(), diskCache: try DiskCache(directory: temporary.path("cache"))))
        let report = await CacheWarmer(pipeline: pipeline, sizes: Self.sizes.union([.fit(32)])).warm(urls)
        #expect(report.madeFromStoredOriginal == Self.names.count && report.fetched == 0)
        #expect(report.thumbnailsWritten == Self.names.count, "only the new size was written")
        #expect(Self.names.allSatisfy { server.requestCount("/\($0)") == 1 })
    }

    @Test func progressCountsEveryImageAndEndsAtTheTotal() async throws {
        let seen = Mutex([WarmProgress]())
        let report = try await makeWarmer().warm(urls) { progress in seen.withLock { $0.append(progress) } }
        let done = seen.withLock { $0.map(\.done) }
        #expect(done.last == Self.names.count && done == done.sorted())
        #expect(seen.withLock { $0.last?.bytesReceived } == report.bytesDownloaded)
    }

    @Test func aCancelledRunStoresNothingPartialAndCountsWhatIsLeft() async throws {
        let gate = ResponseGate()
        for name in Self.names {
            var held = TestHTTPServer.Behavior(body: try Fixtures.bytes(ofTestImage: name))
            held.gate = gate
            server.route("/\(name)", held)
        }
        let warmer = try makeWarmer(maximumInFlight: 2)
        let urls = urls
        let run = Task { await warmer.warm(urls) }
        #expect(try await eventually { Self.names.map { self.server.requestCount("/\($0)") }.reduce(0, +) == 2 })
        run.cancel()
        let report = await run.value
        gate.open()
        #expect(report.unfinished == Self.names.count && report.finished == 0)
        #expect(report.failures.isEmpty, "cancellation is not a failure")
        #expect(try DiskCache(directory: temporary.path("cache")).statistics().totalEntries == 0)
        #expect(Self.names.map { server.requestCount("/\($0)") }.reduce(0, +) == 2, "no image started after the cancel")
    }
}
