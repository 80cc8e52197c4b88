import Foundation
import TestSupport
import Testing
@testable import ThumbnailKit

#if canImport(Glibc)
import Glibc
#endif

/// `thumbnailer warm` stopped part way: by Ctrl-C, by SIGTERM, and by a second
/// Ctrl-C that quits at once. In the first run the server sends two images
/// whole and holds the other four half sent, so the run is stopped after it
/// has stored some images and while the rest are arriving; the next run gets
/// every image whole.
@Suite final class WarmInterruptTests: Sendable {
    let server: TestHTTPServer
    let temporary: TemporaryDirectory
    var cacheDirectory: String { temporary.path("cache") }

    static let whole = ["jpeg-baseline-420-gradient-256x192.jpg", "photo-friends-portrait-1000x1502.jpg"]
    static let halfSent = ["photo-aitzgorri-baseline-3000x1998.jpg", "photo-life-adam7-rgb-640x480.png",
                           "photo-picosdeeuropa-progressive-2048x1536.jpg", "photo-sunset-rgba-vignette-1024x683.png"]

    init() throws {
        server = try TestHTTPServer()
        temporary = try TemporaryDirectory()
        let neverOpened = ResponseGate()
        for name in Self.whole {
            server.route("/images/\(name)", .init(body: try Fixtures.bytes(ofTestImage: name)))
        }
        for name in Self.halfSent {
            let bytes = try Fixtures.bytes(ofTestImage: name)
            var held = TestHTTPServer.Behavior(body: bytes)
            held.holdAfter = (bytes.count / 2, neverOpened)
            server.route("/images/\(name)", held, .init(body: bytes))
        }
        server.route("/feed.json", .init(body: JSONFeed.listing((Self.whole + Self.halfSent).map(imageURL))))
    }

    deinit { server.stop() }

    func imageURL(_ name: String) -> String { server.url("/images/\(name)") }

    /// The held halves send nothing until the run is interrupted: a busy machine must not turn
    /// that into a stall (and its retries) first.
    var warmArguments: [String] {
        ["warm", server.url("/feed.json"), "--cache-dir", cacheDirectory, "--json", "--low-speed-time", "600"]
    }

    /// Starts `warm` and waits until the whole images are stored (original and
    /// thumbnail) while the half-sent ones are held with their first halves in
    /// temporary files; then sends `signal`.
    func interruptedRun(by signal: Int32) async throws -> ChildProcess.Outcome {
        let cache = try DiskCache(directory: cacheDirectory)
        let keys = CacheKeys(appliesOrientation: true)
        // Looked at on disk each time: what the child writes is not in this process's index.
        func isStored(_ url: String) -> Bool {
            cache.containsEntry(forKey: keys.originalOnDisk(url), in: .originals)
                && cache.containsEntry(forKey: keys.thumbnailOnDisk(ThumbnailKey(url: url, size: .fit(256))), in: .thumbnails)
        }
        let child = try ChildProcess.start(warmArguments)
        let midway = try await eventually {
            Self.whole.allSatisfy { isStored(self.imageURL($0)) }
                && self.server.heldResponses == Self.halfSent.count
                && CacheDirectory.temporaryFiles(in: self.cacheDirectory).count == Self.halfSent.count
        }
        #expect(midway, "two images stored and four arriving: \(CacheDirectory.temporaryFiles(in: cacheDirectory))")
        child.signal(signal)
        return try await runBlocking { child.wait(within: .init(duration: .seconds(20))) }
    }

    /// What every interrupted run must leave: the server saw the half-sent
    /// transfers closed, `cache verify` finds the `stored` images and nothing
    /// damaged (and its opening removes a dead writer's temporary files), and
    /// the next run fetches only the images not stored.
    func expectTheNextRunFinishesOnlyTheRest(stored: [String] = whole) async throws {
        let halfSentPaths = Self.halfSent.map { "/images/\($0)" }
        #expect(try await eventually { halfSentPaths.allSatisfy { self.server.earlyCloseCount($0) == 1 } },
                "the server saw every half-sent transfer closed")

        let verify = try await runBlocking { try ChildProcess.run(["cache", "verify", "--cache-dir", self.cacheDirectory, "--json"]) }
        #expect(verify.status == 0, "\(verify.standardOutput)")
        #expect(verify.jsonObject["checked"] as? Int == 2 * stored.count, "an original and a thumbnail per stored image")
        #expect((verify.jsonObject["damaged"] as? [String])?.isEmpty == true)
        #expect(CacheDirectory.temporaryFiles(in: cacheDirectory).isEmpty)

        let rerun = try await runBlocking { try ChildProcess.run(self.warmArguments) }
        #expect(rerun.status == 0, "\(rerun.standardError)")
        let unstored = (Self.whole + Self.halfSent).filter { !stored.contains($0) }
        #expect(rerun.jsonObject["alreadyCached"] as? Int == stored.count)
        #expect(rerun.jsonObject["fetched"] as? Int == unstored.count)
        #expect(stored.allSatisfy { server.requestCount("/images/\($0)") == 1 }, "a stored image is not fetched again")
        #expect(unstored.allSatisfy { server.requestCount("/images/\($0)") == 2 })
        #expect(try DiskCache(directory: cacheDirectory).verify(repair: false).checked == 2 * (Self.whole.count + Self.halfSent.count))
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalStopsTheRunCleanlyAndTheNextFetchesOnlyWhatWasNotStored(signal: Int32) async throws {
        let run = try await interruptedRun(by: signal)
        #expect(run.limitExceeded == nil, "the signal did not stop the run")
        #expect(run.status == 130, "\(run.standardError)")
        #expect(run.standardError.contains("interrupted; stopping"))
        #expect(run.jsonObject["interrupted"] as? Bool == true)
        #expect(run.jsonObject["fetched"] as? Int == Self.whole.count)
        #expect(run.jsonObject["unfinished"] as? Int == Self.halfSent.count)
        #expect(run.jsonObject["failed"] as? Int == 0, "stopping is not failing")
        let leftovers = CacheDirectory.temporaryFiles(in: cacheDirectory)
        #expect(leftovers.isEmpty, "a stopped download removes its temporary file: \(leftovers)")
        try await expectTheNextRunFinishesOnlyTheRest()
    }

    /// The first Ctrl-C starts a clean stop, which waits for the two whole
    /// images, decoded, to be stored, while another process holds the cache's
    /// lock; the second Ctrl-C quits at once all the same, without a summary.
    /// The temporary files it leaves are never trusted and go at the next
    /// opening of the cache.
    @Test func aSecondCtrlCQuitsAtOnceWhileTheCleanStopWaitsAndTheCacheStaysSound() async throws {
        let feedGate = ResponseGate()
        var feed = TestHTTPServer.Behavior(body: JSONFeed.listing((Self.whole + Self.halfSent).map(imageURL)))
        feed.gate = feedGate
        server.route("/feed.json", feed)
        let child = try ChildProcess.start(warmArguments + ["--verbose"])
        // The cache is open once the feed is asked for; from then on, its lock is the test's.
        #expect(try await eventually { self.server.heldResponses == 1 })
        let lock = try HeldCacheLock(directory: cacheDirectory)
        defer { lock.release() }
        feedGate.open()
        // Logged between the decode and the store, which nothing cancels.
        let waitingToStore = try await eventually {
            child.standardErrorSoFar.components(separatedBy: "decoded").count - 1 == Self.whole.count
                && self.server.heldResponses == Self.halfSent.count
        }
        #expect(waitingToStore, "\(child.standardErrorSoFar)")

        child.signal(SIGINT, awaitingDelivery: true)
        child.signal(SIGINT)
        let run = try await runBlocking { child.wait(within: .init(duration: .seconds(20))) }
        lock.release()
        #expect(run.limitExceeded == nil, "the second Ctrl-C did not end the run")
        #expect(run.status == 130, "\(run.standardError)")
        #expect(run.standardError.contains("interrupted; stopping"))
        #expect(run.standardOutput.isEmpty, "quit before the clean stop ended: \(run.standardOutput)")
        try await expectTheNextRunFinishesOnlyTheRest(stored: [])
    }
}
