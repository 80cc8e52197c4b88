import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// Tests/AdopterPackage, an app's package that depends on the library by path,
/// gets a 256 px thumbnail of a web image through the disk tier in three lines
/// of its own: built here with `swift build`, run against the loopback server.
@Suite struct AdopterPackageTests {
    let package = Fixtures.packageRoot.appendingPathComponent("Tests/AdopterPackage")
    /// Beside this package's own build, so that a rerun builds only what changed.
    let scratch = Fixtures.packageRoot.appendingPathComponent(".build/adopter")
    let photo = "photo-friends-portrait-1000x1502.jpg"

    @Test func aSeparatePackageGetsA256PixelThumbnailOfAWebImageWithTheDiskTierInThreeLines() async throws {
        let code = try String(contentsOf: package.appendingPathComponent("Sources/Adopter/main.swift"), encoding: .utf8)
        let lines = code.split(separator: "\n").filter { !$0.allSatisfy(\.isWhitespace) }
        #expect(lines.count <= 3 && lines.first == "import ThumbnailHTTP", "\(code)")

        let adopter = try await build()
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/photo.jpg", TestHTTPServer.Behavior(body: try Fixtures.bytes(ofTestImage: photo)))
        let cache = try TemporaryDirectory()
        let environment = ["THUMBNAILER_CACHE_DIR": cache.path("cache")]

        let first = try await runBlocking {
            try ChildProcess.run([server.url("/photo.jpg")], executable: adopter, environment: environment,
                                 limits: .init(duration: .seconds(30)))
        }
        let expected = ThumbnailSize.fit(256).fitting(width: 1000, height: 1502)
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput == "\(expected.width) \(expected.height)\n", "\(first.standardError)")
        #expect(entries(in: cache.path("cache/originals")) == 1, "the original is in the disk tier")
        #expect(entries(in: cache.path("cache/thumbnails")) == 1, "the thumbnail is in the disk tier")

        // A second run is a new process: its thumbnail comes from the disk tier, not the server.
        let second = try await runBlocking {
            try ChildProcess.run([server.url("/photo.jpg")], executable: adopter, environment: environment,
                                 limits: .init(duration: .seconds(30)))
        }
        #expect(second.status == 0 && second.standardOutput == first.standardOutput, "\(second.standardError)")
        #expect(server.requestCount("/photo.jpg") == 1)
    }

    /// Builds the adopter package, incrementally after the first time; returns its executable.
    private func build() async throws -> String {
        // SwiftPM keeps the build plan of a path dependency whose files were
        // added or removed since, and fails on "missing inputs" (or builds
        // without the new files): removing the plan makes it read the sources
        // again and keeps what was compiled.
        try? FileManager.default.removeItem(at: scratch.appendingPathComponent("debug.yaml"))
        let build = try await runBlocking { [package, scratch] in
            try ChildProcess.run(["swift", "build", "--package-path", package.path, "--scratch-path", scratch.path],
                                 executable: "/usr/bin/env", limits: .init(duration: .seconds(1200), residentBytes: 8 << 30))
        }
        try #require(build.status == 0, "swift build of the adopter package failed:\n\(build.standardOutput)\(build.standardError)")
        return scratch.appendingPathComponent("debug/Adopter").path
    }

    /// Cache entries (files, not temporary ones) anywhere under `directory`.
    private func entries(in directory: String) -> Int {
        let paths = (try? FileManager.default.subpathsOfDirectory(atPath: directory)) ?? []
        return paths.filter { path in
            let type = try? FileManager.default.attributesOfItem(atPath: "\(directory)/\(path)")[.type] as? FileAttributeType
            return type == .typeRegular && path.split(separator: "/").last?.hasPrefix(".tmp-") == false
        }.count
    }
}
