import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// Tests/AdopterPackage, an app's package that depends on the library by path:
/// it configures the shared pipeline with the cache directory it is given (its
/// second argument), else leaves it to its default, and prints the size of a
/// web image's 256 px thumbnail, or `error: …` and exits 1. Built here with
/// `swift build`, run against the loopback server: the process's own
/// `ThumbnailPipeline.shared`, which no test in this process may touch.
/// Serialized: each test builds the package in the same scratch directory.
@Suite(.serialized) final class AdopterPackageTests: Sendable {
    let package = Fixtures.packageRoot.appendingPathComponent("Tests/AdopterPackage")
    /// Beside this package's own build, so that a rerun builds only what changed.
    let scratch = Fixtures.packageRoot.appendingPathComponent(".build/adopter")
    let server: TestHTTPServer
    let cache: TemporaryDirectory
    /// The web image every run asks for: a 1000×1502 JPEG.
    let photo: String

    init() throws {
        server = try TestHTTPServer()
        server.route("/photo.jpg", TestHTTPServer.Behavior(body: try Fixtures.bytes(ofTestImage: "photo-friends-portrait-1000x1502.jpg")))
        photo = server.url("/photo.jpg")
        cache = try TemporaryDirectory()
    }

    deinit { server.stop() }

    @Test func theProgramConfiguresTheSharedPipelineThenUsesIt() throws {
        let code = try String(contentsOf: package.appendingPathComponent("Sources/Adopter/main.swift"), encoding: .utf8)
        let lines = code.split(separator: "\n").filter { !$0.allSatisfy(\.isWhitespace) }
        #expect(lines.count <= 14 && lines.contains("import ThumbnailHTTP"), "\(code)")
        let configured = try #require(code.range(of: "ThumbnailPipeline.configureShared("), "\(code)")
        let used = try #require(code.range(of: "ThumbnailPipeline.shared."), "\(code)")
        #expect(configured.upperBound < used.lowerBound, "configured before its first use")
    }

    /// The directory the app configured holds the disk tiers, not the default
    /// one; a second run, a new process, gets the thumbnail from there.
    @Test func theCacheDirectoryTheAppConfiguredHoldsTheDiskTiers() async throws {
        let arguments = [photo, cache.path("configured")]
        let environment = ["THUMBNAILER_CACHE_DIR": cache.path("default")]

        let first = try await runAdopter(arguments, environment: environment)
        let expected = ThumbnailSize.fit(256).fitting(width: 1000, height: 1502)
        #expect(first.status == 0, "\(first.standardOutput) \(first.standardError)")
        #expect(first.standardOutput == "\(expected.width) \(expected.height)\n", "\(first.standardError)")
        #expect(entries(in: cache.path("configured/originals")) == 1, "the original is in the configured disk tier")
        #expect(entries(in: cache.path("configured/thumbnails")) == 1, "the thumbnail is in the configured disk tier")
        #expect(!FileManager.default.fileExists(atPath: cache.path("default")), "the default directory is not used")

        let second = try await runAdopter(arguments, environment: environment)
        #expect(second.status == 0 && second.standardOutput == first.standardOutput, "\(second.standardError)")
        #expect(server.requestCount("/photo.jpg") == 1)
    }

    /// Unconfigured, `shared` is the default: `$THUMBNAILER_CACHE_DIR`. When
    /// that directory is refused, using `shared` throws the refusal: the app
    /// hears of it, nothing is written there and nothing is fetched.
    @Test func unconfiguredTheDefaultDirectoryHoldsTheDiskTiersAndARefusedOneThrows() async throws {
        let usable = try await runAdopter([photo], environment: ["THUMBNAILER_CACHE_DIR": cache.path("default")])
        #expect(usable.status == 0, "\(usable.standardOutput) \(usable.standardError)")
        #expect(entries(in: cache.path("default/thumbnails")) == 1, "the thumbnail is in the default disk tier")

        let documents = cache.path("documents")
        try FileManager.default.createDirectory(atPath: documents, withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: documents + "/notes.txt"))
        let refused = try await runAdopter([photo], environment: ["THUMBNAILER_CACHE_DIR": documents])
        #expect(refused.status == 1, "\(refused.standardOutput) \(refused.standardError)")
        #expect(refused.standardOutput == "error: \(UnsafeCacheDirectory.foreign(documents, holding: ["notes.txt"]))\n",
                "\(refused.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: documents) == ["notes.txt"])
        #expect(server.requestCount("/photo.jpg") == 1, "only the usable run fetched")
    }

    /// A directory the app may not write, configured, throws `DiskCacheError`
    /// before anything is fetched. As root the program runs as `nobody`, for whom
    /// permissions apply (WebPipelineTests skips this case as root).
    @Test func aReadOnlyCacheDirectoryThrowsWhenItIsConfigured() async throws {
        let readOnly = cache.path("read-only")
        try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o555])

        let run = try await runAdopter([photo, readOnly], unprivileged: true)
        #expect(run.status == 1, "\(run.standardOutput) \(run.standardError)")
        #expect(run.standardOutput.hasPrefix("error: cache directory \(readOnly) is unusable"), "\(run.standardOutput)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: readOnly).isEmpty)
        #expect(server.requestCount("/photo.jpg") == 0)
    }

    /// A 404, asked through the configured shared pipeline, reaches the
    /// program as a `ThumbnailError` of kind `fetch`, and nothing is written
    /// to stderr: the app handles the failure, the library only logs it at debug.
    @Test func aMissingImageIsATypedFetchErrorWithNothingOnStandardError() async throws {
        server.route("/missing.jpg", TestHTTPServer.Behavior(status: 404))
        let run = try await runAdopter([server.url("/missing.jpg"), cache.path("configured")])
        #expect(run.status == 1, "\(run.standardOutput) \(run.standardError)")
        #expect(run.standardOutput.hasPrefix("error: fetch: ") && run.standardOutput.contains("404"), "\(run.standardOutput)")
        #expect(run.standardError.isEmpty, "\(run.standardError)")
    }

    /// Builds the adopter package (incrementally after the first time) and runs
    /// it; `unprivileged`, as `nobody` when the tests run as root.
    private func runAdopter(_ arguments: [String], environment: [String: String] = [:],
                            unprivileged: Bool = false) async throws -> ChildProcess.Outcome {
        let adopter = try await build()
        return try await runBlocking {
            guard unprivileged, getuid() == 0 else {
                return try ChildProcess.run(arguments, executable: adopter, environment: environment,
                                            limits: .init(duration: .seconds(30)))
            }
            return try ChildProcess.run(["--reuid=65534", "--regid=65534", "--clear-groups", adopter] + arguments,
                                        executable: "/usr/bin/setpriv", environment: environment,
                                        limits: .init(duration: .seconds(30)))
        }
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
