import Foundation
import TestSupport
import Testing
import ThumbnailKit
import ThumbnailServer

/// `thumbnailer serve --store` on a replica with an empty disk: what `warm --store`
/// put in the real S3-compatible store (OpenStack Swift's s3api on loopback) is
/// served from there, and the origin hears nothing.
@Suite final class ServeStoreTests: Sendable {
    let origin: TestHTTPServer
    let temporary: TemporaryDirectory

    init() throws {
        origin = try TestHTTPServer.servingPortrait()
        temporary = try TemporaryDirectory()
        origin.route("/feed.json", .init(body: JSONFeed.listing([origin.url("/portrait.jpg")])))
    }

    deinit { origin.stop() }

    @Test(.enabled(if: S3TestStore.isAvailable, "needs python3-swift and memcached: \(S3TestStore.unavailableReason ?? "")"),
          .timeLimit(.minutes(3)))
    func aThumbnailWarmWroteToTheStoreIsServedWithNoOriginRequest() async throws {
        let store = try await S3TestStore.shared()
        let location = "s3://\(try await store.makeBucket("serve"))/fleet"
        let warm = ["warm", origin.url("/feed.json"), "--store", location, "-s", "256", "-s", "fill:101x57",
                    "--cache-dir", temporary.path("warm-cache")]
        let warmed = try await ChildProcess.run(warm, environment: store.environment, limits: .init())
        #expect(warmed.status == 0, "\(warmed.summary)")
        #expect(origin.requestCount("/portrait.jpg") == 1)

        // Another machine: its own, empty, disk cache; the same store.
        let server = try await ServeProcess.start(
            ["--cache-dir", temporary.path("replica-cache"), "--private-addresses", "--store", location],
            environment: store.environment.merging(ServeCommandTests.environment) { _, signing in signing })
        for (size, mode, width, height) in [(ThumbnailSize.fit(256), ResizeMode.fit, 170, 256),
                                            (.fit(width: 101, height: 57), .fill, 101, 57)] {
            let path = ThumbnailURL(size: size, mode: mode, source: origin.url("/portrait.jpg"))
                .path(signing: ServeCommandTests.signing)
            let response = try await server.get(path)
            #expect(response.status == 200, "\(mode) \(size)")
            let thumbnail = try await ThumbnailDecoder(size: .original).decode(response.body)
            #expect((thumbnail.width, thumbnail.height) == (width, height), "\(mode) \(size)")
        }
        #expect(origin.requestCount("/portrait.jpg") == 1, "\(origin.receivedRequests.map(\.path))")
        #expect(try await server.stop().status == 0)
    }
}
