import TestSupport
import Testing
import ThumbnailHTTP
import ThumbnailKit

/// The S3 client against a real S3-compatible server on loopback (OpenStack
/// Swift's s3api): signed requests, metadata, listing, refusals.
@Suite(.enabled(if: S3TestStore.isAvailable, "needs python3-swift and memcached: \(S3TestStore.unavailableReason ?? "")"))
struct S3ObjectStoreTests {
    func makeStore(prefix: String = "thumbs/v1", environment: [String: String]? = nil) async throws -> S3ObjectStore {
        let store = try await S3TestStore.shared()
        let bucket = try await store.makeBucket()
        return try S3ObjectStore(configuration: .fromEnvironment(location: "s3://\(bucket)/\(prefix)",
                                                                  environment: environment ?? store.environment))
    }

    @Test func anObjectComesBackWithItsBytesAndMetadataAndAHeadReadsTheMetadataAlone() async throws {
        let store = try await makeStore()
        let bytes = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let metadata = ["source-url": "http://example.com/a%20b.jpg", "sha256": "ab12", "size": "256"]
        try await store.put(StoredObject(bytes: bytes, metadata: metadata), forKey: "thumbnails/ab/ab12")

        let read = try #require(try await store.object(forKey: "thumbnails/ab/ab12"))
        #expect(read.bytes == bytes)
        #expect(read.metadata == metadata)
        #expect(try await store.metadata(forKey: "thumbnails/ab/ab12") == metadata)
        #expect(try await store.object(forKey: "thumbnails/ab/missing") == nil)
        #expect(try await store.metadata(forKey: "thumbnails/ab/missing") == nil)
    }

    /// libcurl 7.88 signs `x-amz-meta-a` and `x-amz-meta-a-b` in an order S3 does not accept.
    @Test func metadataNamesThatBeginOneAnotherAreRefusedBeforeAnythingIsSent() async throws {
        let store = try await makeStore()
        let sent = store.requestCount
        let error = await #expect(throws: S3Error.self) {
            try await store.put(StoredObject(bytes: [1], metadata: ["source": "a", "source-url": "b"]), forKey: "k")
        }
        guard case .configuration = error else { Issue.record("expected a configuration error, got \(String(describing: error))"); return }
        #expect(store.requestCount == sent)
    }

    @Test func aListingPagesThroughEveryObjectUnderThePrefixAndNoneOutsideIt() async throws {
        let store = try await makeStore(prefix: "a")
        let neighbour = try S3ObjectStore(configuration: .init(
            endpoint: store.configuration.endpoint, region: store.configuration.region, bucket: store.configuration.bucket,
            prefix: "ab", accessKeyID: store.configuration.accessKeyID,
            secretAccessKey: store.configuration.secretAccessKey))
        for index in 0..<7 {
            try await store.put(StoredObject(bytes: Array(repeating: 1, count: index + 1), metadata: [:]),
                                forKey: "thumbnails/\(index)")
        }
        try await neighbour.put(StoredObject(bytes: [1, 2, 3], metadata: [:]), forKey: "thumbnails/0")

        var pages: [[(key: String, bytes: Int)]] = []
        try await store.forEachObject(under: "thumbnails/", pageSize: 3) { pages.append($0) }
        #expect(pages.map(\.count) == [3, 3, 1])
        #expect(pages.flatMap { $0.map(\.key) } == (0..<7).map { "thumbnails/\($0)" })
        #expect(pages.flatMap { $0.map(\.bytes) } == Array(1...7))
    }

    @Test func wrongCredentialsAreRefusedAsAccessDenied() async throws {
        var environment = try await S3TestStore.shared().environment
        environment["AWS_SECRET_ACCESS_KEY"] = "not-the-secret"
        let store = try await makeStore(environment: environment)
        let error = await #expect(throws: S3Error.self) { try await store.checkAccess() }
        #expect(error?.isAccessDenied == true)
        await #expect(throws: S3Error.self) {
            try await store.put(StoredObject(bytes: [1], metadata: [:]), forKey: "thumbnails/x")
        }
    }

    @Test func aBucketThatDoesNotExistIsNamedAndAStoppedStoreIsUnreachable() async throws {
        let shared = try await S3TestStore.shared()
        let missing = try S3ObjectStore(configuration: .fromEnvironment(location: "s3://no-such-bucket",
                                                                         environment: shared.environment))
        let error = await #expect(throws: S3Error.self) { try await missing.checkAccess() }
        #expect(error?.description.contains("NoSuchBucket") == true)

        var environment = shared.environment
        environment["AWS_ENDPOINT_URL"] = "http://127.0.0.1:1"
        let unreachable = try S3ObjectStore(configuration: .fromEnvironment(location: "s3://b", environment: environment))
        let down = await #expect(throws: S3Error.self) { try await unreachable.checkAccess() }
        guard case .unreachable = down else { Issue.record("expected unreachable, got \(String(describing: down))"); return }
    }

    @Test func theEnvironmentGivesEndpointRegionCredentialsAndAddressing() throws {
        let custom = try S3Configuration.fromEnvironment(location: "s3://bucket/some/prefix/", environment: [
            "AWS_ENDPOINT_URL": "http://127.0.0.1:9000/", "AWS_REGION": "eu-west-3",
            "AWS_ACCESS_KEY_ID": "account:user", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": "token",
        ])
        #expect(custom.endpoint == "http://127.0.0.1:9000" && custom.region == "eu-west-3" && custom.usesPathStyle)
        #expect(custom.bucket == "bucket" && custom.prefix == "some/prefix" && custom.sessionToken == "token")
        #expect(custom.location == "s3://bucket/some/prefix")

        let aws = try S3Configuration.fromEnvironment(location: "s3://bucket", environment: [
            "AWS_DEFAULT_REGION": "ap-south-1", "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s",
        ])
        #expect(aws.endpoint == "https://s3.ap-south-1.amazonaws.com" && !aws.usesPathStyle && aws.prefix.isEmpty)

        #expect(throws: S3Error.self) { try S3Configuration.fromEnvironment(location: "s3://bucket", environment: [:]) }
        #expect(throws: S3Error.self) {
            try S3Configuration.fromEnvironment(location: "https://bucket", environment: ["AWS_ACCESS_KEY_ID": "a",
                                                                                          "AWS_SECRET_ACCESS_KEY": "s"])
        }
    }
}

/// Transient failures of a store (S3's `503 SlowDown` while it partitions a busy prefix) are
/// tried again with backoff. The failures come from a loopback server that answers 503 first:
/// fault injection, the only thing the real store cannot be asked to do on cue.
@Suite struct S3RetryTests {
    @Test func aSlowDownIsTriedAgainAndTheAnswerAfterItCounts() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let slowDown = TestHTTPServer.Behavior(status: 503, body: Array("<Error><Code>SlowDown</Code></Error>".utf8))
        server.route("/b/p/thumbnails/k", slowDown, slowDown, .init(status: 200, headers: ["x-amz-meta-size": "256"]))
        server.route("/b/p/thumbnails/never", slowDown, slowDown, slowDown, slowDown, slowDown)
        let store = try S3ObjectStore(
            configuration: .init(endpoint: server.url(""), region: "us-east-1", bucket: "b", prefix: "p",
                                 accessKeyID: "key", secretAccessKey: "secret"),
            retryPolicy: RetryPolicy(maximumAttempts: 4, initialDelay: .milliseconds(1)))

        #expect(try await store.metadata(forKey: "thumbnails/k") == ["size": "256"])
        #expect(server.requestCount("/b/p/thumbnails/k") == 3)

        let error = await #expect(throws: S3Error.self) { try await store.metadata(forKey: "thumbnails/never") }
        #expect(error == .refused("HEAD s3://b/p/thumbnails/never", status: 503, code: nil, message: nil))
        #expect(server.requestCount("/b/p/thumbnails/never") == 4)
        // Signed as S3 wants: the algorithm, the key, and the payload's hash.
        let head = try #require(server.receivedRequests.last)
        #expect(head.headers["authorization"]?.hasPrefix("AWS4-HMAC-SHA256 Credential=key/") == true, "\(head.headers)")
        #expect(head.headers["x-amz-content-sha256"] == SHA256Hex.empty)
    }
}

enum SHA256Hex {
    /// The SHA-256 of no bytes: a request without a body signs this payload hash.
    static let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
}
