import TestSupport
import Testing
import ThumbnailKit

/// `thumbnailer warm` keeps to its bounds, counted where the work happens: the
/// downloads in flight at the server, which holds every response until the
/// test lets it go, and the decodes running in the summary's
/// `peakConcurrentDecodes`. Each bound must be reached, not merely respected.
@Suite final class ConcurrencyBoundTests: Sendable {
    let server: TestHTTPServer
    let temporary: TemporaryDirectory
    let gate = ResponseGate()

    init() throws {
        server = try TestHTTPServer()
        temporary = try TemporaryDirectory()
    }

    deinit { server.stop() }

    /// Serves `bodies` at /images/<n>, each held at the gate, and a feed of them at /feed.json.
    func serveHeldImages(_ bodies: [[UInt8]]) -> [String] {
        let paths = bodies.indices.map { "/images/\($0)" }
        for (path, body) in zip(paths, bodies) {
            var held = TestHTTPServer.Behavior(body: body)
            held.gate = gate
            server.route(path, held)
        }
        server.route("/feed.json", .init(body: JSONFeed.listing(paths.map(server.url))))
        return paths
    }

    func startWarm(_ options: [String]) throws -> ChildProcess.Running {
        // The held responses send nothing for as long as the test holds them: a busy machine must not
        // turn that into a stall, whose retries would pile more requests up at the server.
        try ChildProcess.start(["warm", server.url("/feed.json"), "--cache-dir", temporary.path("cache"), "--json",
                                "--low-speed-time", "600"] + options)
    }

    /// `--concurrency` (default 6) is the number of images downloading at once.
    /// The responses go one at a time, each once the client has as many
    /// requests waiting as it may: the bound is reached at every step.
    @Test(arguments: [(options: [String](), bound: 6), (options: ["--concurrency", "3"], bound: 3)])
    func downloadsInFlightReachTheBoundAndNeverPassIt(options: [String], bound: Int) async throws {
        let paths = serveHeldImages(try (0..<10).map { try NumberedImage.png($0) })
        let child = try startWarm(options)
        for released in paths.indices {
            let steady = try await eventually(within: .seconds(20)) {
                paths.map(self.server.requestCount).reduce(0, +) == min(paths.count, released + bound)
                    && self.server.heldResponses == min(bound, paths.count - released)
            }
            #expect(steady, "after \(released) responses: \(server.heldResponses) held")
            guard steady else { break }
            gate.admit()
        }
        gate.open()
        let run = try await runBlocking { child.wait(within: .init(duration: .seconds(20))) }
        #expect(run.status == 0, "\(run.standardError)")
        #expect(server.peakHeldResponses == bound)
        #expect(paths.allSatisfy { server.requestCount($0) == 1 })
    }

    /// `--decoders` is the number of images decoding at once. Six PNGs arrive
    /// together (all held until then), so decodes queue for every slot.
    @Test(arguments: [1, 3])
    func decodesAtOnceReachTheDecoderBoundAndNeverPassIt(decoders: Int) async throws {
        let png = try Fixtures.bytes(ofTestImage: "photo-sunset-rgba-vignette-1024x683.png")
        let paths = serveHeldImages(Array(repeating: png, count: 6))
        let child = try startWarm(["--decoders", "\(decoders)"])
        let allWaiting = try await eventually(within: .seconds(20)) { self.server.heldResponses == paths.count }
        #expect(allWaiting)
        gate.open()
        let run = try await runBlocking { child.wait(within: .init(duration: .seconds(20))) }
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.jsonObject["fetched"] as? Int == paths.count)
        #expect(run.jsonObject["peakConcurrentDecodes"] as? Int == decoders)
    }
}
