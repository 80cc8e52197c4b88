import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// `thumbnailer warm` into a cache whose `originals/<xx>` folder is a symbolic link to a folder
/// outside it: the image the link's shard would take fails by the link's name, exit 1, and nothing
/// is written through the link. (Before, the original was written, and read back, outside the cache.)
@Suite final class WarmSymbolicLinkTests: Sendable {
    let server: TestHTTPServer
    let temporary: TemporaryDirectory
    /// A folder outside the cache.
    let elsewhere: TemporaryDirectory

    init() throws {
        server = try TestHTTPServer()
        temporary = try TemporaryDirectory()
        elsewhere = try TemporaryDirectory()
    }

    deinit { server.stop() }

    @Test func anOriginalIsNeverWrittenThroughALinkedShardFolder() async throws {
        let image = server.url("/images/a.jpg")
        server.route("/images/a.jpg", .init(body: try Fixtures.bytes(ofTestImage: "jpeg-baseline-420-gradient-256x192.jpg")))
        let feed = #"{"version": "https://jsonfeed.org/version/1.1", "title": "t", "items": [{"id": "1", "image": "\#(image)"}]}"#
        server.route("/feed.json", .init(body: Array(feed.utf8)))
        let cache = temporary.path("cache")
        _ = try DiskCache(directory: cache)
        let shard = "\(cache)/originals/\(SHA256.hexDigest(of: image).prefix(2))"
        try FileManager.default.createSymbolicLink(atPath: shard, withDestinationPath: elsewhere.url.path)

        let run = try await ChildProcess.run(["warm", server.url("/feed.json"), "--cache-dir", cache, "-s", "64"])

        #expect(run.status == 1, "\(run.standardOutput) \(run.standardError)")
        #expect(run.standardOutput.contains("failed      1"), "\(run.standardOutput)")
        #expect(run.standardOutput.contains("cache folder \(shard) is a symbolic link; the cache never writes through it"),
                "\(run.standardOutput)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.url.path).isEmpty, "nothing outside the cache")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: shard)) == elsewhere.url.path, "the link is left alone")
    }
}
