import Foundation
import Logging
import Synchronization
import TestSupport
import Testing
@testable import ThumbnailHTTP

/// `ThumbnailPipeline.Configuration.web(...)`, the configuration behind
/// `ThumbnailPipeline.shared`: web and local images, the disk tiers in the
/// directory given, and a pipeline in memory only (never a failure) when that
/// directory cannot hold a cache.
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
        let pipeline = ThumbnailPipeline(configuration: .web(cacheDirectory: directory.path("cache")))
        #expect(pipeline.configuration.diskCache?.directory == directory.path("cache"))

        let web = try await pipeline.thumbnail(for: server.url("/photo.jpg"), size: 256)
        #expect((web.width, web.height) == ThumbnailSize.fit(256).fitting(width: 1000, height: 1502))
        let local = try await pipeline.thumbnail(for: Fixtures.testImage("jpeg-baseline-420-gradient-256x192.jpg"), size: 64)
        #expect((local.width, local.height) == (64, 48))

        // Another process's pipeline on the same directory answers from the disk tier.
        let later = ThumbnailPipeline(configuration: .web(cacheDirectory: directory.path("cache")))
        let again = try await later.thumbnail(for: server.url("/photo.jpg"), size: 256)
        #expect((again.width, again.height) == (web.width, web.height))
        #expect(server.requestCount("/photo.jpg") == 1)
    }

    @Test func theAddressPolicyGivenReachesTheTransport() async throws {
        let directory = try TemporaryDirectory()
        let pipeline = ThumbnailPipeline(configuration: .web(cacheDirectory: directory.path("cache"),
                                                             http: .init(addressPolicy: .publicOnly)))
        await #expect {
            try await pipeline.thumbnail(for: self.server.url("/photo.jpg"), size: 256)
        } throws: {
            ThumbnailError.matches($0, .fetch, DataLoadingError.privateAddressRefused(self.server.url("/photo.jpg"), address: "127.0.0.1"))
        }
        #expect(server.requestCount("/photo.jpg") == 0)
    }

    @Test func aFolderOfOtherFilesIsLeftAloneAndThumbnailsStayInMemoryWithAWarning() async throws {
        let directory = try TemporaryDirectory()
        try Data("mine".utf8).write(to: directory.url.appendingPathComponent("notes.txt"))
        let warnings = RecordedWarnings()
        let pipeline = ThumbnailPipeline(configuration: .web(cacheDirectory: directory.path(""), logger: warnings.logger))

        #expect(pipeline.configuration.diskCache == nil)
        #expect(warnings.messages.contains { $0.contains("memory only") && $0.contains("notes.txt") }, "\(warnings.messages)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path("")) == ["notes.txt"])
        let thumbnail = try await pipeline.thumbnail(for: server.url("/photo.jpg"), size: 256)
        #expect(pipeline.cachedThumbnail(for: ThumbnailRequest(url: server.url("/photo.jpg"), size: 256))?.width == thumbnail.width)
    }

    @Test func aDirectoryThatCannotBeMadeLeavesThumbnailsInMemoryWithAWarning() async throws {
        let directory = try TemporaryDirectory()
        try Data().write(to: directory.url.appendingPathComponent("file"))
        let warnings = RecordedWarnings()
        let pipeline = ThumbnailPipeline(configuration: .web(cacheDirectory: directory.path("file/cache"),
                                                             logger: warnings.logger))

        #expect(pipeline.configuration.diskCache == nil)
        #expect(warnings.messages.contains { $0.contains("memory only") && $0.contains("file/cache") }, "\(warnings.messages)")
        let thumbnail = try await pipeline.thumbnail(for: server.url("/photo.jpg"), size: 128)
        #expect(max(thumbnail.width, thumbnail.height) == 128)
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

/// Warnings logged through ``logger``, as text with their metadata.
private final class RecordedWarnings: Sendable {
    private let recorded = Mutex<[String]>([])
    var messages: [String] { recorded.withLock { $0 } }

    var logger: Logger {
        Logger(label: "test") { _ in Handler(record: { message in self.recorded.withLock { $0.append(message) } }) }
    }

    private struct Handler: LogHandler {
        let record: @Sendable (String) -> Void
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .warning

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            record("\(event.message) \(event.metadata ?? [:])")
        }
    }
}
