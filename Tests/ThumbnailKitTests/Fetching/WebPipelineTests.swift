import Foundation
import Synchronization
import TestSupport
import Testing
@testable import ThumbnailHTTP

/// `ThumbnailPipeline.Configuration.web(...)`, the configuration behind
/// `ThumbnailPipeline.shared`: web and local images, the disk tiers in the
/// directory given, and an error (never a pipeline quietly in memory only)
/// when that directory must not or cannot hold a cache.
@Suite final class WebPipelineTests: Sendable {
    let server: TestHTTPServer
    let photo = "photo-friends-portrait-1000x1502.jpg"

    init() throws {
        server = try TestHTTPServer()
        server.route("/photo.jpg", TestHTTPServer.Behavior(body: try Fixtures.bytes(ofTestImage: photo)))
    }

    deinit { server.stop() }

    @Test func loadsWebImagesAndFilesAndKeepsThemInTheCacheDirectory() async throws {
        let directory = try TemporaryDirectory()
        let pipeline = ThumbnailPipeline(configuration: try .web(cacheDirectory: directory.path("cache")))
        #expect(pipeline.configuration.diskCache?.directory == directory.path("cache"))

        let web = try await pipeline.thumbnail(for: server.url("/photo.jpg"), size: 256)
        #expect((web.width, web.height) == ThumbnailSize.fit(256).fitting(width: 1000, height: 1502))
        let local = try await pipeline.thumbnail(for: Fixtures.testImage("jpeg-baseline-420-gradient-256x192.jpg"), size: 64)
        #expect((local.width, local.height) == (64, 48))

        // Another process's pipeline on the same directory answers from the disk tier.
        let later = ThumbnailPipeline(configuration: try .web(cacheDirectory: directory.path("cache")))
        let again = try await later.thumbnail(for: server.url("/photo.jpg"), size: 256)
        #expect((again.width, again.height) == (web.width, web.height))
        #expect(server.requestCount("/photo.jpg") == 1)
    }

    @Test func theAddressPolicyGivenReachesTheTransport() async throws {
        let directory = try TemporaryDirectory()
        let pipeline = ThumbnailPipeline(configuration: try .web(cacheDirectory: directory.path("cache"),
                                                                 http: .init(addressPolicy: .publicOnly)))
        await #expect {
            try await pipeline.thumbnail(for: self.server.url("/photo.jpg"), size: 256)
        } throws: {
            ThumbnailError.matches($0, .fetch, DataLoadingError.privateAddressRefused(self.server.url("/photo.jpg"), address: "127.0.0.1"))
        }
        #expect(server.requestCount("/photo.jpg") == 0)
    }

    /// `/`, the home directory and a folder of other files are refused
    /// before anything is written there: the refusal is the error, not a
    /// pipeline in memory only.
    @Test(arguments: RefusedDirectory.allCases)
    func aDirectoryThatIsNoPlaceForACacheThrowsItsRefusal(_ refused: RefusedDirectory) throws {
        let directory = try TemporaryDirectory()
        let (path, refusal) = try refused.make(in: directory)
        let before = try FileManager.default.contentsOfDirectory(atPath: path)

        #expect(throws: refusal) { try ThumbnailPipeline.Configuration.web(cacheDirectory: path) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: path) == before, "nothing written in \(path)")
    }

    @Test func aDirectoryThatCannotBeMadeThrowsTheDiskCacheError() throws {
        let directory = try TemporaryDirectory()
        try Data().write(to: directory.url.appendingPathComponent("file"))

        #expect { try ThumbnailPipeline.Configuration.web(cacheDirectory: directory.path("file/cache")) } throws: { error in
            guard case .unusableDirectory(let path, _)? = error as? DiskCacheError else { return false }
            return path == directory.path("file/cache")
        }
    }

    /// Root writes anywhere: AdopterPackageTests runs this case as `nobody` in a child process.
    @Test(.enabled(if: getuid() != 0, "root may write in a read-only directory"))
    func aReadOnlyDirectoryThrowsTheDiskCacheError() throws {
        let directory = try TemporaryDirectory()
        let readOnly = directory.path("read-only")
        try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o555])

        #expect { try ThumbnailPipeline.Configuration.web(cacheDirectory: readOnly) } throws: { error in
            guard case .unusableDirectory(let path, _)? = error as? DiskCacheError else { return false }
            return path == readOnly
        }
    }

    @Test func withoutADiskCacheThumbnailsStayInMemoryOnPurpose() async throws {
        let pipeline = ThumbnailPipeline(configuration: .web(diskCache: nil))
        #expect(pipeline.configuration.diskCache == nil)

        let thumbnail = try await pipeline.thumbnail(for: server.url("/photo.jpg"), size: 256)
        #expect(pipeline.cachedThumbnail(for: ThumbnailRequest(url: server.url("/photo.jpg"), size: 256))?.width == thumbnail.width)
    }

    @Test func withoutATransportEachWebRequestFailsSayingWhy() async throws {
        let loader = SchemeRoutingDataLoader(network: UnavailableDataLoader(reason: "libcurl: out of memory"))
        let pipeline = ThumbnailPipeline(configuration: .init(dataLoader: loader, retryPolicy: .never))
        await #expect {
            try await pipeline.thumbnail(for: self.server.url("/photo.jpg"), size: 256)
        } throws: {
            ThumbnailError.matches($0, .fetch, DataLoadingError.network(self.server.url("/photo.jpg"), reason: "libcurl: out of memory"))
        }
        let local = try await pipeline.thumbnail(for: Fixtures.testImage("jpeg-baseline-420-gradient-256x192.jpg"), size: 64)
        #expect(local.width == 64)
    }

    @Test func aNumberIsASquareBox() {
        let size: ThumbnailSize = 256
        #expect(size == .fit(256))
        #expect(size.fitting(width: 3000, height: 1998) == (256, 170))
    }

    @Test func theURLShorthandAsksTheProviderForThatURLSizeAndPriority() async throws {
        let provider = try RequestRecorder()
        _ = try await provider.thumbnail(for: "https://example.com/a.jpg", size: 128, priority: .visible)
        _ = try await provider.thumbnail(for: "/photos/b.png")
        #expect(provider.requests == [
            ThumbnailRequest(url: "https://example.com/a.jpg", size: .fit(128), priority: .visible),
            ThumbnailRequest(url: "/photos/b.png", size: .fit(256), priority: .normal),
        ])
    }
}

/// A provider that answers every request with a 1×1 thumbnail and records what it was asked.
private final class RequestRecorder: ThumbnailProviding {
    private let asked = Mutex<[ThumbnailRequest]>([])
    private let answer: Thumbnail
    var requests: [ThumbnailRequest] { asked.withLock { $0 } }

    init() throws {
        answer = try ThumbnailDecoder(size: .fit(1)).decode(contentsOfFile: Fixtures.testImage("jpeg-odd-1x1.jpg"))
    }

    func cachedThumbnail(for request: ThumbnailRequest) -> Thumbnail? { nil }

    func thumbnail(for request: ThumbnailRequest,
                   progress: (@Sendable (ThumbnailProgress) -> Void)?) async throws -> Thumbnail {
        asked.withLock { $0.append(request) }
        return answer
    }
}

/// A directory ``CacheLocation/refusal(for:)`` refuses, and the refusal it gives.
enum RefusedDirectory: CaseIterable, Sendable, CustomTestStringConvertible {
    case root, home, folderOfOtherFiles

    var testDescription: String { "\(self)" }

    /// The directory (in `temporary` when it is made for the test) and its refusal.
    func make(in temporary: TemporaryDirectory) throws -> (String, UnsafeCacheDirectory) {
        switch self {
        case .root:
            return ("/", .root("/"))
        case .home:
            let home = try #require(ProcessInfo.processInfo.environment["HOME"])
            return (home, .home(home))
        case .folderOfOtherFiles:
            try Data("mine".utf8).write(to: temporary.url.appendingPathComponent("notes.txt"))
            return (temporary.path(""), .foreign(temporary.path(""), holding: ["notes.txt"]))
        }
    }
}
