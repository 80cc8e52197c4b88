import Foundation
import TestSupport
import Testing
import ThumbnailKit
import ThumbnailServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fleet as `scripts/fleet.sh` runs one: `thumbnailer serve` replicas sharing a real
/// S3-compatible store (OpenStack Swift's s3api on loopback), behind Debian's nginx configured by
/// the very file the project ships (`scripts/fleet/nginx.conf`). Images carry their number in
/// their colour (``NumberedImage/coarsePNG(_:width:height:)``), so every response is checked.
@Suite(.serialized, .enabled(if: Fleet.unavailableReason == nil, "\(Fleet.unavailableReason ?? "")"))
final class FleetTests: Sendable {
    let origin: TestHTTPServer
    let temporary: TemporaryDirectory
    let gate = ResponseGate()

    init() throws {
        origin = try TestHTTPServer()
        temporary = try TemporaryDirectory()
    }

    deinit { origin.stop() }

    /// Images `range` on the origin, the ones in `held` waiting behind the gate.
    func serveImages(_ range: Range<Int>, held: Range<Int> = 0..<0) throws {
        for number in range {
            var behavior = TestHTTPServer.Behavior(body: try NumberedImage.coarsePNG(number, width: 64, height: 48))
            if held.contains(number) { behavior.gate = gate }
            origin.route("/images/\(number).png", behavior)
        }
    }

    /// The unsigned URL of image `number`'s thumbnail (32 pixels unless `side`), in the format it warrants (JPEG).
    func path(_ number: Int, side: Int = 32) -> String {
        ThumbnailURL(size: .fit(side), mode: .fit, source: origin.url("/images/\(number).png")).path(signing: .unsigned)
    }

    @Test(.timeLimit(.minutes(5)))
    func whatWarmStoredIsServedByTheFleetWithNoFetchAndNoRender() async throws {
        try serveImages(0..<100)
        let store = try await S3TestStore.shared()
        let location = "s3://\(try await store.makeBucket("fleet"))/warm-first"
        origin.route("/feed.json", .init(body: JSONFeed.listing((0..<100).map { origin.url("/images/\($0).png") })))
        let warmed = try await ChildProcess.run(["warm", origin.url("/feed.json"), "--store", location, "-s", "32",
                                                 "--cache-dir", temporary.path("warm")], environment: store.environment, limits: .init())
        #expect(warmed.status == 0, "\(warmed.summary)")

        let fleet = try await Fleet.start(replicas: 3, store: store, location: location, in: temporary)
        defer { fleet.stop() }
        let answers = try await fleet.getAll((0..<100).map { path($0) })
        #expect(answers.allSatisfy { $0.status == 200 }, "\(answers.map(\.status))")
        #expect(try await wrongNumbers(answers, numbers: Array(0..<100)).isEmpty)
        #expect((0..<100).allSatisfy { origin.requestCount("/images/\($0).png") == 1 }, "only warm fetched")
        #expect(try await fleet.renders() == 0)
        #expect(answers.allSatisfy { $0.headers["x-thumbnail-tier"] == "store" })
    }

    @Test(.timeLimit(.minutes(5)))
    func aThousandThumbnailsFetchEachSourceOnceAndTheCacheAnswersTheSecondPass() async throws {
        // 500 images at two sizes: the hash on the source sends both to one replica, which fetches the image once.
        try serveImages(0..<500)
        let store = try await S3TestStore.shared()
        let fleet = try await Fleet.start(replicas: 3, store: store, location: "s3://\(try await store.makeBucket("fleet"))/thousand",
                                          in: temporary)
        defer { fleet.stop() }
        let paths = (0..<500).flatMap { [path($0), path($0, side: 24)] }
        let first = try await fleet.getAll(paths)
        #expect(first.allSatisfy { $0.status == 200 }, "\(Dictionary(grouping: first.map(\.status)) { $0 }.mapValues(\.count))")
        #expect(try await wrongNumbers(first, numbers: (0..<500).flatMap { [$0, $0] }).isEmpty)
        let fetches = (0..<500).map { origin.requestCount("/images/\($0).png") }
        let refetched = fetches.indices.filter { fetches[$0] != 1 }
        let where_ = refetched.prefix(10).map { number in
            "\(number) fetched \(fetches[number]) times; " + fleet.replicas.indices.flatMap { replica in
                fleet.replicas[replica].accessLogEntries().filter { Fleet.sourceNumber(ofPath: $0.path) == number }
                    .map { "replica \(replica): \($0.status) \($0.tier)" }
            }.joined(separator: ", ")
        }
        #expect(refetched.isEmpty, "\(where_)")
        // The hash spreads the sources over every replica.
        let served = fleet.replicaRequestCounts()
        #expect(served.count == 3 && served.allSatisfy { $0 > 150 }, "\(served)")

        let second = try await fleet.getAll(paths)
        #expect(second.allSatisfy { $0.status == 200 && $0.headers["x-cache-status"] == "HIT" })
        #expect(fleet.replicaRequestCounts() == served, "a cached thumbnail reached a replica")
    }

    @Test(.timeLimit(.minutes(5)))
    func aReplicaKilledMidLoadLosesNoMoreThanItHeldAndItsThumbnailsComeFromTheStore() async throws {
        try serveImages(0..<600, held: 300..<600)
        let store = try await S3TestStore.shared()
        let fleet = try await Fleet.start(replicas: 3, store: store, location: "s3://\(try await store.makeBucket("fleet"))/killed",
                                          in: temporary)
        defer { fleet.stop() }
        // What every replica renders and stores while all are up.
        let before = try await fleet.getAll((0..<300).map { path($0) })
        #expect(before.allSatisfy { $0.status == 200 })
        let victim = fleet.replicas[1]
        let victimsSources = Set(victim.accessLogPaths().compactMap(Fleet.sourceNumber))
        #expect(victimsSources.count > 50, "\(victimsSources.count)")

        // A load whose sources the origin holds: once it is spread over the replicas, kill one.
        // (60 held needs more than 6 downloads at once per replica: a replica downloads as many as it renders.)
        async let loaded = fleet.getAll((300..<600).map { path($0) }, concurrency: 100)
        #expect(try await eventually(within: .seconds(60)) { origin.heldResponses >= 60 }, "\(origin.heldResponses) held")
        let held = try await victim.inFlight()
        victim.kill()
        gate.open()
        let answers = try await loaded
        let failures = answers.filter { $0.status != 200 }
        #expect(failures.count <= held, "\(failures.count) failures, \(held) requests on the killed replica")
        #expect(try await wrongNumbers(answers, numbers: Array(300..<600)).allSatisfy { answers[$0 - 300].status != 200 })
        print("fleet: a replica killed holding \(held) requests; clients saw \(failures.count) failures of 300")

        // The killed replica's thumbnails, asked again (another Accept: not in nginx's cache), come
        // from the store by way of the others.
        let fetchedBefore = victimsSources.map { origin.requestCount("/images/\($0).png") }
        let again = try await fleet.getAll(victimsSources.sorted().map { path($0) }, headers: ["Accept": "image/jpeg"])
        #expect(again.allSatisfy { $0.status == 200 && $0.headers["x-thumbnail-tier"] == "store" && $0.headers["x-cache-status"] == "MISS" },
                "\(again.prefix(3).map { ($0.status, $0.headers) })")
        #expect(victimsSources.map { origin.requestCount("/images/\($0).png") } == fetchedBefore)

        // Restarted on an empty disk, it serves the fleet's thumbnails from the store at once.
        let restarted = try await fleet.restart(victim, emptyDisk: true)
        for number in [0, 150, 299] {
            let response = try await restarted.get(path(number))
            let shown = await Fleet.number(in: response)
            #expect(response.status == 200 && shown == number)
            #expect(response.headers["x-thumbnail-tier"] == "store")
        }
        #expect(origin.requestCount("/images/0.png") == 1 && origin.requestCount("/images/299.png") == 1)
    }

    /// Those of `numbers` whose responses (in the same order) do not show their own image.
    private func wrongNumbers(_ responses: [TestHTTPClient.Response], numbers: [Int]) async throws -> [Int] {
        var wrong: [Int] = []
        for (number, response) in zip(numbers, responses) {
            if await Fleet.number(in: response) != number { wrong.append(number) }
        }
        return wrong
    }
}
