import TestSupport
import Testing

/// `--store` with a location that would not stay where it says is a usage error (exit 64),
/// found before anything is fetched or asked of the store: `s3://bucket/../other/x` once had
/// its bucket checked and its objects written into bucket `other`.
@Suite struct StoreLocationTests {
    @Test(arguments: [
        (["warm", "FEED"], "s3://bucket/../other/x", "a '..' segment in the prefix"),
        (["warm", "FEED"], "s3://bucket/x//y", "an empty segment in the prefix"),
        (["warm", "FEED"], "s3://bucket/x\u{1B}[2J", "a control character in the prefix"),
        (["cache", "stats"], "s3://../x", "'..' is not a bucket name"),
    ])
    func aStoreLocationThatLeavesItsPrefixIsAUsageError(command: [String], location: String, reason: String) async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let cache = try TemporaryDirectory()
        let arguments = command.map { $0 == "FEED" ? server.url("/feed.json") : $0 }
            + ["--store", location, "--cache-dir", cache.path("cache")]
        let outcome = try await runBlocking {
            try ChildProcess.run(arguments, environment: ["AWS_ENDPOINT_URL": server.url(""), "AWS_ACCESS_KEY_ID": "a",
                                                          "AWS_SECRET_ACCESS_KEY": "s"],
                                 limits: .init(duration: .seconds(30)))
        }
        #expect(outcome.status == 64, "exit \(outcome.status): \(outcome.standardError)")
        #expect(outcome.standardError.contains(reason), "\(outcome.standardError)")
        #expect(!outcome.standardError.contains("\u{1B}"), "the location is shown with its control characters escaped")
        #expect(server.receivedRequests.isEmpty, "nothing was asked of the feed's server or the store")
    }
}
