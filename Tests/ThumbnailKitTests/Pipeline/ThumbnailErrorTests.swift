import Foundation
import Synchronization
import TestSupport
import Testing
import ThumbnailHTTP
import ThumbnailKit

/// The pipeline's one error type, each kind from a real cause against the loopback server and a
/// real disk cache: the kind an app switches on, and the detailed error still reachable beneath it.
@Suite final class ThumbnailErrorTests: Sendable {
    let server: TestHTTPServer
    let temporary: TemporaryDirectory
    static let name = "jpeg-baseline-420-gradient-256x192.jpg"

    init() throws {
        server = try TestHTTPServer()
        temporary = try TemporaryDirectory()
    }

    deinit { server.stop() }

    func makePipeline(diskCache: DiskCache? = nil) throws -> ThumbnailPipeline {
        ThumbnailPipeline(configuration: .init(dataLoader: try HTTPDataLoader(), diskCache: diskCache, retryPolicy: .never))
    }

    /// What `pipeline` throws for `path`, or `nil` when it made a thumbnail.
    func failure(of path: String, from pipeline: ThumbnailPipeline) async -> (any Error)? {
        do {
            _ = try await pipeline.thumbnail(for: server.url(path), size: 64)
            return nil
        } catch {
            return error
        }
    }

    @Test func aNotFoundIsAFetchErrorWithTheStatusReachable() async throws {
        server.route("/missing.jpg", .init(status: 404))
        let error = try #require(await failure(of: "/missing.jpg", from: try makePipeline()) as? ThumbnailError)
        #expect(error.kind == .fetch)
        guard case let .httpStatus(url, 404, _)? = error.underlying as? DataLoadingError else {
            Issue.record("underlying: \(error.underlying)")
            return
        }
        #expect(url == server.url("/missing.jpg"))
        #expect(error.description == "\(server.url("/missing.jpg")): HTTP 404", "the underlying error's message, URL first")
    }

    @Test func bytesThatAreNoImageAreADecodeError() async throws {
        server.route("/page.jpg", .init(body: Array("<html>a login page</html>".utf8)))
        let error = try #require(await failure(of: "/page.jpg", from: try makePipeline()) as? ThumbnailError)
        #expect(error.kind == .decode)
        guard case .unsupportedFormat? = error.underlying as? ThumbnailDecodingError else {
            Issue.record("underlying: \(error.underlying)")
            return
        }
    }

    @Test func aCancelledRequestIsOfKindCancelledAndNotCountedAsAFailure() async throws {
        var held = TestHTTPServer.Behavior(body: try Fixtures.bytes(ofTestImage: Self.name))
        held.holdAfter = (bytes: 1_000, gate: ResponseGate())
        server.route("/held.jpg", held)
        let pipeline = try makePipeline()
        let firstBytes = Mutex(false)
        let request = Task {
            try await pipeline.thumbnail(for: ThumbnailRequest(url: server.url("/held.jpg"), size: .fit(64))) { _ in
                firstBytes.withLock { $0 = true }
            }
        }
        #expect(try await eventually { firstBytes.withLock { $0 } })
        request.cancel()
        let error = try #require(await #expect(throws: ThumbnailError.self) { try await request.value })
        #expect(error.kind == .cancelled && error.underlying is CancellationError)
        #expect(ThumbnailError.isCancellation(error) && ThumbnailError.isCancellation(CancellationError()))
        #expect(error.description == "cancelled")
        #expect(pipeline.statistics.failures == 0)
    }

    /// Every shard folder of the original tier is a file: a download has nowhere to land, and the
    /// disk cache's refusal is what the caller gets.
    @Test func anOriginalTheDiskCannotTakeIsAStorageError() async throws {
        server.route("/\(Self.name)", .init(body: try Fixtures.bytes(ofTestImage: Self.name)))
        let cache = try DiskCache(directory: temporary.path("cache"))
        for folder in 0..<256 {
            let path = "\(cache.directory)/originals/\(String(format: "%02x", folder))"
            try? FileManager.default.removeItem(atPath: path)
            try Data().write(to: URL(fileURLWithPath: path))
        }
        let error = try #require(await failure(of: "/\(Self.name)", from: try makePipeline(diskCache: cache)) as? ThumbnailError)
        #expect(error.kind == .storage)
        guard case .notAFolder(_, symbolicLink: false)? = error.underlying as? DiskCacheError else {
            Issue.record("underlying: \(error.underlying)")
            return
        }
    }

    /// The object store's errors do not reach a request (a store that cannot be read is passed
    /// over, with a warning): an app that calls the store itself files its error the same way.
    @Test func anObjectStoreRefusalIsAStoreError() async throws {
        server.route("/b/p/thumbnails/k", .init(status: 403))
        let store = try S3ObjectStore(
            configuration: .init(endpoint: server.url(""), region: "us-east-1", bucket: "b", prefix: "p",
                                 accessKeyID: "key", secretAccessKey: "secret"))
        do {
            _ = try await store.object(forKey: "thumbnails/k")
            Issue.record("a refused read returned")
        } catch {
            let filed = ThumbnailError(error)
            #expect(filed.kind == .store)
            #expect((filed.underlying as? S3Error)?.isAccessDenied == true)
            #expect(ThumbnailError(filed).kind == .store, "a ThumbnailError stays as it is")
        }
    }
}
