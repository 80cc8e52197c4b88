import Foundation
import TestSupport
import Testing
import ThumbnailHTTP
import ThumbnailKit

/// `thumbnailer warm --store s3://… --shard i/n` end to end: built binaries as
/// separate processes, a loopback origin that counts every request, and a real
/// S3-compatible store (OpenStack Swift's s3api) on loopback.
@Suite final class WarmShardStoreTests: Sendable {
    /// The tests that need the store skip, saying why, where it cannot run.
    static let needsStore = Testing.ConditionTrait.enabled(
        if: S3TestStore.isAvailable, "needs python3-swift and memcached: \(S3TestStore.unavailableReason ?? "")")

    let server: TestHTTPServer
    let temporary: TemporaryDirectory

    init() throws {
        server = try TestHTTPServer()
        temporary = try TemporaryDirectory()
    }

    deinit { server.stop() }

    /// `count` numbered images at /images/N.png and a JSON Feed of them at /feed.json; the images
    /// from `held` on wait behind `gate` until it opens.
    func serveFeed(of count: Int, holdingFrom held: Int? = nil, behind gate: ResponseGate? = nil) throws -> [String] {
        let urls = (0..<count).map { server.url("/images/\($0).png") }
        for index in 0..<count {
            var behavior = TestHTTPServer.Behavior(body: try NumberedImage.png(index))
            if let held, index >= held { behavior.gate = gate }
            server.route("/images/\(index).png", behavior)
        }
        server.route("/feed.json", .init(body: JSONFeed.listing(urls)))
        return urls
    }

    func warmArguments(store location: String, shard: String, cache: String) -> [String] {
        ["warm", server.url("/feed.json"), "--store", location, "--shard", shard, "-s", "32", "-s", "64",
         "--cache-dir", temporary.path(cache), "--json"]
    }

    /// Four `warm --shard k/4` processes side by side, each with a disk cache of its own.
    func runShards(location: String, cachePrefix: String, environment: [String: String]) async throws -> [ChildProcess.Outcome] {
        let arguments = (0..<4).map { warmArguments(store: location, shard: "\($0)/4", cache: "\(cachePrefix)-\($0)") }
        return try await runBlocking {
            try arguments.map { try ChildProcess.start($0, environment: environment) }
                .map { $0.wait(within: .init(duration: .seconds(120))) }
        }
    }

    /// Every object under the store's thumbnails/, with its bytes checked against
    /// the checksum in its metadata, as a reader checks it.
    func storedObjects(_ store: S3ObjectStore) async throws -> (count: Int, unreadable: [String]) {
        var keys: [String] = []
        try await store.forEachObject(under: "thumbnails/") { keys += $0.map(\.key) }
        var unreadable: [String] = []
        for key in keys {
            let object = try #require(try await store.object(forKey: key))
            if object.metadata["sha256"] != SHA256Hex.of(object.bytes) { unreadable.append(key) }
        }
        return (keys.count, unreadable)
    }

    @Test(needsStore, .timeLimit(.minutes(3)))
    func fourShardsPutEveryImageInTheStoreOnceFetchingEachURLOnceAndTheirRerunDoesNothing() async throws {
        let urls = try serveFeed(of: 400)
        let shared = try await S3TestStore.shared()
        let location = "s3://\(try await shared.makeBucket())/fleet"
        let store = try S3ObjectStore(configuration: .fromEnvironment(location: location, environment: shared.environment))

        let first = try await runShards(location: location, cachePrefix: "cache", environment: shared.environment)
        for outcome in first { #expect(outcome.status == 0, "\(outcome.standardError)") }
        let summaries = first.map(\.jsonObject)
        // Each shard took exactly the images whose digest falls in its slice.
        for (index, summary) in summaries.enumerated() {
            let slice = urls.filter(WarmShard(index: index, count: 4)!.contains).count
            #expect(summary["images"] as? Int == slice && summary["fetched"] as? Int == slice)
            #expect(summary["feedImages"] as? Int == 400 && summary["shard"] as? String == "\(index)/4")
        }
        #expect(summaries.compactMap { $0["images"] as? Int }.reduce(0, +) == 400)
        #expect(summaries.compactMap { $0["storeObjectsWritten"] as? Int }.reduce(0, +) == 800)
        // No URL was fetched twice: no two shards shared an image.
        #expect((0..<400).allSatisfy { server.requestCount("/images/\($0).png") == 1 })
        let stored = try await storedObjects(store)
        #expect(stored.count == 800 && stored.unreadable.isEmpty)

        // All four again, on machines with empty disks: the store's HEADs answer, nothing is fetched or written.
        let second = try await runShards(location: location, cachePrefix: "fresh", environment: shared.environment)
        for outcome in second { #expect(outcome.status == 0, "\(outcome.standardError)") }
        #expect(second.compactMap { $0.jsonObject["alreadyCached"] as? Int }.reduce(0, +) == 400)
        #expect(second.compactMap { $0.jsonObject["storeObjectsWritten"] as? Int }.reduce(0, +) == 0)
        #expect(second.compactMap { $0.jsonObject["bytesDownloaded"] as? Int }.reduce(0, +) == 0)
        #expect((0..<400).allSatisfy { server.requestCount("/images/\($0).png") == 1 })
    }

    @Test(needsStore) func wrongCredentialsExitTwoWithAClearErrorBeforeAnyImageIsFetched() async throws {
        _ = try serveFeed(of: 5)
        let shared = try await S3TestStore.shared()
        var environment = shared.environment
        environment["AWS_SECRET_ACCESS_KEY"] = "wrong"
        let arguments = warmArguments(store: "s3://\(try await shared.makeBucket())/p", shard: "0/1", cache: "c")
        let outcome = try await runBlocking { [environment] in try ChildProcess.run(arguments, environment: environment, limits: .init()) }
        #expect(outcome.status == 2)
        #expect(outcome.standardError.contains("cannot use the store") && outcome.standardError.contains("AWS_SECRET_ACCESS_KEY"))
        #expect(server.receivedRequests.isEmpty)
    }

    // The limit only catches a hang: its own waits (60 s for the first objects, 60 s for the rerun)
    // bound it, and beside the other end-to-end suites on 2 cores it has taken over 120 s.
    @Test(needsStore, .timeLimit(.minutes(5)))
    func aShardKilledMidRunLeavesOnlyWholeObjectsAndItsRerunCompletesTheSet() async throws {
        // The first 10 images come at once; the other 50 are held until the rerun, so the first run
        // is still at work when it is killed, however fast or slow the machine is.
        let gate = ResponseGate()
        _ = try serveFeed(of: 60, holdingFrom: 10, behind: gate)
        let shared = try await S3TestStore.shared()
        let location = "s3://\(try await shared.makeBucket())/fleet"
        let store = try S3ObjectStore(configuration: .fromEnvironment(location: location, environment: shared.environment))
        var arguments = warmArguments(store: location, shard: "0/1", cache: "cache")
        arguments += ["--concurrency", "2", "--decoders", "2"]

        let running = try ChildProcess.start(arguments, environment: shared.environment)
        // 4 images in flight (2 downloads + 2 decodes): 7 have finished before the first held one
        // starts, and two held ones may then take both download slots from whatever is left of the 10.
        #expect(try await polling(for: .seconds(60)) { try await self.storedObjects(store).count >= 14 })
        _ = try await runBlocking { running.kill() }
        let left = try await storedObjects(store)
        #expect(left.count < 120 && left.unreadable.isEmpty)
        gate.open()

        let rerun = try await runBlocking { [arguments] in
            try ChildProcess.run(arguments, environment: shared.environment, limits: .init(duration: .seconds(60)))
        }
        #expect(rerun.status == 0, "\(rerun.standardError)")
        let summary = rerun.jsonObject
        // The images whose two objects were both stored were skipped, not fetched again.
        #expect((summary["alreadyCached"] as? Int ?? 0) >= left.count / 2 - 2)
        #expect((summary["alreadyCached"] as? Int ?? 0) + (summary["fetched"] as? Int ?? 0)
            + (summary["madeFromStoredOriginals"] as? Int ?? 0) + (summary["copiedToStore"] as? Int ?? 0) == 60)
        let complete = try await storedObjects(store)
        #expect(complete.count == 120 && complete.unreadable.isEmpty)
    }

    @Test(needsStore, .timeLimit(.minutes(3)))
    func aStoreStoppedMidRunFailsTheImagesNamingItAndARerunAfterItsRestartCompletes() async throws {
        // The first 10 images come at once; the other 50 wait behind a gate until the store is down,
        // so they meet a stopped store however fast or slow the machine is.
        let gate = ResponseGate()
        _ = try serveFeed(of: 60, holdingFrom: 10, behind: gate)
        let own = try await S3TestStore()
        let location = "s3://\(try await own.makeBucket())/fleet"
        let store = try S3ObjectStore(configuration: .fromEnvironment(location: location, environment: own.environment))
        var arguments = warmArguments(store: location, shard: "0/1", cache: "cache")
        arguments += ["--concurrency", "2", "--decoders", "2"]

        let running = try ChildProcess.start(arguments, environment: own.environment)
        // As above: 7 images are whole before a held one can take a download slot.
        #expect(try await polling(for: .seconds(60)) { try await self.storedObjects(store).count >= 14 })
        try await own.stop()
        gate.open()
        // Each request to the stopped store is tried 4 times over about 2 s before its image fails.
        let outcome = try await runBlocking { running.wait(within: .init(duration: .seconds(100))) }
        // An unreachable store may be back later: 75, which a scheduler retries on.
        #expect(outcome.status == 75, "\(outcome.standardOutput) \(outcome.standardError)")
        let failures = outcome.jsonObject["failures"] as? [[String: Any]] ?? []
        #expect(!failures.isEmpty)
        #expect(outcome.jsonObject["failedTransiently"] as? Int == outcome.jsonObject["failed"] as? Int)
        #expect(failures.allSatisfy { ($0["reason"] as? String ?? "").contains("object store") })

        try await own.restart()
        let rerun = try await runBlocking { [arguments] in
            try ChildProcess.run(arguments, environment: own.environment, limits: .init(duration: .seconds(60)))
        }
        #expect(rerun.status == 0, "\(rerun.standardError)")
        let complete = try await storedObjects(store)
        #expect(complete.count == 120 && complete.unreadable.isEmpty)
    }

    @Test(needsStore, .timeLimit(.minutes(5)))
    func withOriginalsInTheStoreANewSizeIsMadeFromThemWithTheOriginGone() async throws {
        _ = try serveFeed(of: 10)
        let shared = try await S3TestStore.shared()
        let location = "s3://\(try await shared.makeBucket())/fleet"
        let first = ["warm", server.url("/feed.json"), "--store", location, "--store-originals", "-s", "32",
                     "--cache-dir", temporary.path("one"), "--json"]
        let warmed = try await runBlocking { try ChildProcess.run(first, environment: shared.environment, limits: .init()) }
        #expect(warmed.status == 0 && warmed.jsonObject["storeObjectsWritten"] as? Int == 20,
                "\(warmed.summary) \(warmed.standardOutput)")
        let stats = try await runBlocking {
            try ChildProcess.run(["cache", "stats", "--store", location, "--json"], environment: shared.environment, limits: .init())
        }
        #expect(stats.jsonObject["originalsObjects"] as? Int == 10 && stats.jsonObject["thumbnailsObjects"] as? Int == 10,
                "\(stats.standardOutput)")

        // The feed is a file now, and the origin is gone: only the store can make a new size.
        let feed = temporary.path("feed.json")
        try Data(JSONFeed.listing((0..<10).map { server.url("/images/\($0).png") })).write(to: URL(fileURLWithPath: feed))
        server.stop()
        let second = ["warm", "file://\(feed)", "--store", location, "--store-originals", "-s", "48",
                      "--cache-dir", temporary.path("two"), "--json"]
        let made = try await runBlocking { try ChildProcess.run(second, environment: shared.environment, limits: .init()) }
        #expect(made.status == 0, "\(made.summary) \(made.standardOutput)")
        #expect(made.jsonObject["madeFromStoredOriginals"] as? Int == 10 && made.jsonObject["storeObjectsWritten"] as? Int == 10)
    }

    /// `--shard-count N` as a Kubernetes Indexed Job or a Slurm array job runs it: the index from
    /// `JOB_COMPLETION_INDEX` or `SLURM_ARRAY_TASK_ID` (the task's own number, also when it is
    /// resubmitted alone, `--array=2`), and only that slice's images fetched. No store needed.
    @Test(arguments: [["JOB_COMPLETION_INDEX": "2"], ["SLURM_ARRAY_TASK_ID": "2"],
                      ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "2", "SLURM_ARRAY_TASK_COUNT": "1"]])
    func theIndexComesFromTheJobAndOnlyItsSliceIsFetched(environment: [String: String]) async throws {
        let urls = (0..<30).map { server.url("/images/\($0).png") }
        for index in 0..<30 { server.route("/images/\(index).png", .init(body: try NumberedImage.png(index))) }
        server.route("/feed.json", .init(body: JSONFeed.listing(urls)))
        let arguments = ["warm", server.url("/feed.json"), "--shard-count", "3", "--cache-dir", temporary.path("cache"), "--json"]
        let run = try await runBlocking {
            try ChildProcess.run(arguments, environment: environment, limits: .init())
        }
        #expect(run.status == 0, "\(run.standardError)")
        let slice = WarmShard(index: 2, count: 3)!
        let mine = urls.filter(slice.contains)
        #expect(!mine.isEmpty && mine.count < urls.count)
        #expect(run.jsonObject["shard"] as? String == "2/3" && run.jsonObject["images"] as? Int == mine.count)
        for (index, url) in urls.enumerated() {
            #expect(server.requestCount("/images/\(index).png") == (slice.contains(url) ? 1 : 0))
        }
    }
}

/// Asks `condition` every 100 ms (each ask lists the store) until it holds or `timeout` passes.
func polling(for timeout: Duration, _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try await Task.sleep(for: .milliseconds(100))
    }
    return true
}

/// Lower-case hex SHA-256, as the store's metadata carries it.
enum SHA256Hex {
    static func of(_ bytes: [UInt8]) -> String {
        SHA256.hex(SHA256.digest(bytes))
    }
}
