import TestSupport
import Testing
import ThumbnailHTTP
import ThumbnailKit

/// A store's prefix is part of every key, not a path: `s3://bucket/../other/x` once checked
/// `bucket` and wrote into bucket `other` (the URL's dot segments resolved). Locations and keys
/// that would leave where they say are refused before any request, and every key is the
/// prefix, a slash, and the key, as the store sees it.
@Suite struct S3LocationTests {
    static let credentials = ["AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s"]

    @Test(arguments: [
        ("s3://bucket/../other/x", "a '..' segment in the prefix"),
        ("s3://bucket/a/../../x", "a '..' segment in the prefix"),
        ("s3://bucket/..", "a '..' segment in the prefix"),
        ("s3://bucket/./x", "a '.' segment in the prefix"),
        ("s3://bucket//x", "an empty segment in the prefix"),
        ("s3://bucket/a//b", "an empty segment in the prefix"),
        ("s3://bucket/a//", "an empty segment in the prefix"),
        ("s3://bucket/a\nb", "a control character in the prefix"),
        ("s3://bucket/a\u{7F}", "a control character in the prefix"),
        ("s3://bucket/a\u{85}b", "a control character in the prefix"),
        ("s3://../x", "'..' is not a bucket name"),
        ("s3://./x", "'.' is not a bucket name"),
        ("s3:///x", "no bucket"),
        ("s3://", "no bucket"),
        ("s3://evil.example:80@bucket/x", "a bucket name is letters, digits"),
        ("s3://b%2E%2E/x", "a bucket name is letters, digits"),
        ("https://bucket/x", "a store is given as s3://BUCKET/PREFIX"),
    ])
    func aLocationThatWouldNotStayWhereItSaysIsRefused(location: String, reason: String) {
        let checked = #expect(throws: S3Error.self) { try S3Configuration.validate(location: location) }
        let read = #expect(throws: S3Error.self) { try S3Configuration.fromEnvironment(location: location, environment: Self.credentials) }
        for error in [checked, read] {
            guard case let .invalidLocation(refused, said) = error else {
                Issue.record("\(location): \(String(describing: error))")
                continue
            }
            #expect(refused == location && said.hasPrefix(reason), "\(said)")
        }
    }

    @Test(arguments: [
        ("s3://bucket", "bucket", ""), ("s3://bucket/", "bucket", ""), ("s3://bucket/some/prefix/", "bucket", "some/prefix"),
        ("s3://My.bucket-1_x/a.b/..c/c../%2E%2E", "My.bucket-1_x", "a.b/..c/c../%2E%2E"),
    ])
    func aLocationOfKeysIsTakenAsWritten(location: String, bucket: String, prefix: String) throws {
        try S3Configuration.validate(location: location)
        let configuration = try S3Configuration.fromEnvironment(location: location, environment: Self.credentials)
        #expect(configuration.bucket == bucket && configuration.prefix == prefix)
    }

    @Test func theInitialiserChecksAsTheLocationDoes() {
        #expect(throws: S3Error.invalidLocation("s3://bucket/../other", reason: "a '..' segment in the prefix: it is part of every key, not a path")) {
            try S3Configuration(endpoint: "http://127.0.0.1:9", region: "r", bucket: "bucket", prefix: "/../other/",
                                accessKeyID: "a", secretAccessKey: "s")
        }
        #expect(throws: S3Error.invalidLocation("s3://..", reason: "'..' is not a bucket name")) {
            try S3Configuration(endpoint: "http://127.0.0.1:9", region: "r", bucket: "..", accessKeyID: "a", secretAccessKey: "s")
        }
    }

    @Test func aControlCharacterIsShownEscapedInTheMessage() {
        let message = S3Error.invalidLocation("s3://bucket/a\u{1B}[2Jb", reason: "a control character in the prefix").description
        #expect(message == "object store location s3://bucket/a\\x1B[2Jb refused: a control character in the prefix")
    }

    /// Against a loopback server standing in for the store: every request's path is the bucket,
    /// the prefix and the key; a key that would leave the prefix is refused without a request.
    @Test func keysStayBelowThePrefixAndAKeyThatWouldLeaveItIsRefusedUnsent() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let environment = Self.credentials.merging(["AWS_ENDPOINT_URL": server.url("")]) { $1 }
        let store = try S3ObjectStore(configuration: .fromEnvironment(location: "s3://bucket/fleet/v1", environment: environment),
                                      retryPolicy: RetryPolicy(maximumAttempts: 1))
        #expect(try await store.object(forKey: "thumbnails/ab/abcd") == nil)  // the server's 404
        #expect(try await store.metadata(forKey: "originals/cd/cdef") == nil)
        #expect(server.receivedRequests.map(\.path) == ["/bucket/fleet/v1/thumbnails/ab/abcd", "/bucket/fleet/v1/originals/cd/cdef"])

        for key in ["../../other/x", "thumbnails/../../../other/x", "./x", "a//b", "/x", "", "a\u{0}b"] {
            await #expect(throws: S3Error.self, "\(key)") { _ = try await store.object(forKey: key) }
            await #expect(throws: S3Error.self, "\(key)") { try await store.put(StoredObject(bytes: [1], metadata: [:]), forKey: key) }
        }
        await #expect(throws: S3Error.self) { try await store.forEachObject(under: "../") { _ in } }
        #expect(server.receivedRequests.count == 2, "nothing was sent for the refused keys")
    }
}
