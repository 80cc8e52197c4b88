import Synchronization
import TestSupport
import Testing
import ThumbnailHTTP
@testable import ThumbnailKit

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
        // Each size is decoded at its own size (its bytes never depend on the other), from one download.
        #expect(warmer.pipeline.statistics.decodes == Self.names.count * Self.sizes.count, "one decode per size")
        #expect(Self.names.allSatisfy { server.requestCount("/\($0)") == 1 })
        let expectedBytes = try Self.names.map { try Fixtures.bytes(ofTestImage: $0).count }.reduce(0, +)
        #expect(report.bytesDownloaded == expectedBytes)
        for url in urls {
            #expect(warmer.pipeline.stores.copiesOnDisk(of: url, sizes: Self.sizes) == StoredCopies(hasOriginal: true, thumbnailSizes: Self.sizes))
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

    /// Two images arrive whole, then two stop half sent (their first halves in
    /// temporary files); then the run is cancelled.
    @Test func aCancelledRunKeepsWhatItFinishedLeavesNothingPartialAndTheNextFetchesOnlyTheRest() async throws {
        let (whole, halfSent) = (Array(Self.names.prefix(2)), Array(Self.names.dropFirst(2)))
        let neverOpened = ResponseGate()
        for name in halfSent {
            let bytes = try Fixtures.bytes(ofTestImage: name)
            var held = TestHTTPServer.Behavior(body: bytes)
            held.holdAfter = (bytes.count / 2, neverOpened)
            server.route("/\(name)", held, .init(body: bytes))
        }
        let urls = urls
        let cacheDirectory = temporary.path("cache")
        let warmer = try makeWarmer(maximumInFlight: 2)
        let complete = StoredCopies(hasOriginal: true, thumbnailSizes: Self.sizes)

        let run = Task { await warmer.warm(urls) }
        let midway = try await eventually {
            whole.allSatisfy { warmer.pipeline.stores.copiesOnDisk(of: self.server.url("/\($0)"), sizes: Self.sizes) == complete }
                && self.server.heldResponses == halfSent.count
                && CacheDirectory.temporaryFiles(in: cacheDirectory).count == halfSent.count
        }
        #expect(midway, "two images stored and two arriving")
        run.cancel()
        let report = await run.value

        #expect(report.fetched == whole.count && report.unfinished == halfSent.count)
        #expect(report.failures.isEmpty, "cancellation is not a failure")
        let leftovers = CacheDirectory.temporaryFiles(in: cacheDirectory)
        #expect(leftovers.isEmpty, "a cancelled download has removed its temporary file when the run returns: \(leftovers)")
        #expect(try await eventually { halfSent.allSatisfy { self.server.earlyCloseCount("/\($0)") == 1 } },
                "the server saw every half-sent transfer closed")
        let verification = try DiskCache(directory: cacheDirectory).verify(repair: false)
        #expect(verification.checked == whole.count * (1 + Self.sizes.count) && verification.damaged.isEmpty)

        let rerun = await (try makeWarmer()).warm(urls)
        #expect(rerun.alreadyCached == whole.count && rerun.fetched == halfSent.count && rerun.failures.isEmpty)
        #expect(whole.allSatisfy { server.requestCount("/\($0)") == 1 }, "a stored image is not fetched again")
        #expect(halfSent.allSatisfy { server.requestCount("/\($0)") == 2 })
    }

    /// An image already decoded (every size) when the run is cancelled is being stored:
    /// its storing ends (here it first waits for another process's hold on
    /// the cache's lock), and the run counts it as fetched, not as left for
    /// the next run.
    @Test func anImageBeingStoredWhenTheRunIsCancelledIsFinishedAndCounted() async throws {
        let (stored, halfSent) = (Self.names[0], Self.names[1])
        let bytes = try Fixtures.bytes(ofTestImage: halfSent)
        var held = TestHTTPServer.Behavior(body: bytes)
        held.holdAfter = (bytes.count / 2, ResponseGate())
        server.route("/\(halfSent)", held)
        let warmer = try makeWarmer()
        let lock = try HeldCacheLock(directory: temporary.path("cache"))
        defer { lock.release() }

        let urls = [server.url("/\(stored)"), server.url("/\(halfSent)")]
        let run = Task { await warmer.warm(urls) }
        let decodedAndHeld = try await eventually {
            warmer.pipeline.statistics.decodes == Self.sizes.count && self.server.heldResponses == 1
        }
        #expect(decodedAndHeld)
        run.cancel()
        lock.release()
        let report = await run.value

        #expect(report.fetched == 1 && report.unfinished == 1 && report.failures.isEmpty)
        #expect(report.thumbnailsWritten == Self.sizes.count)
        #expect(warmer.pipeline.stores.copiesOnDisk(of: server.url("/\(stored)"), sizes: Self.sizes)
            == StoredCopies(hasOriginal: true, thumbnailSizes: Self.sizes))
        #expect(CacheDirectory.temporaryFiles(in: temporary.path("cache")).isEmpty)
    }
}
