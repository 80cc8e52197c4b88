import ArgumentParser
import CommandLineSupport
import ThumbnailHTTP
import ThumbnailKit

/// How images are downloaded, for every command that fetches them (`warm`,
/// `browse`, `serve`): the download cap, the speed floor, the time limit and retries.
struct TransportOptions: ParsableArguments {
    @Option(help: "The largest image downloaded, announced or counted, e.g. 50M (at least 1 byte; no unlimited).")
    var maxDownloadBytes = ByteCount(bytes: 50_000_000)

    @Option(help: "A transfer slower than this many bytes per second for --low-speed-time ends as stalled (at least 1).")
    var lowSpeedLimit = 1024

    @Option(help: "Seconds a transfer may stay under --low-speed-limit (at least 1).")
    var lowSpeedTime = 15

    @Option(help: """
        Seconds one download may take in all (at least 1), or unlimited: then only the speed floor \
        ends a transfer. A body still arriving above --low-speed-limit when this runs out is not \
        retried: a server that slow stays slow.
        """)
    var transferTimeout = Liftable.limit(120)

    @Option(help: """
        Attempts per image; only transient failures (connect timeouts, stalls, 5xx, 429, dropped \
        connections) are retried. At least 1 (no retry).
        """)
    var retries = 3

    func validate() throws {
        try LimitOption.validate(maxDownloadBytes.bytes, "--max-download-bytes", unit: "byte")
        try LimitOption.validate(lowSpeedLimit, "--low-speed-limit", unit: "byte per second")
        try LimitOption.validate(lowSpeedTime, "--low-speed-time", unit: "second")
        if let seconds = transferTimeout.value { try LimitOption.validate(seconds, "--transfer-timeout", unit: "second", liftable: true) }
        try LimitOption.validate(retries, "--retries")
    }

    /// When to retry an image.
    var retryPolicy: RetryPolicy { RetryPolicy(maximumAttempts: retries) }

    /// The speed floor and time limits asked for, with `addressPolicy`.
    func transport(addressPolicy: HTTPDataLoader.AddressPolicy) -> HTTPDataLoader.Configuration {
        HTTPDataLoader.Configuration(transferTimeout: transferTimeout.value.map { .seconds($0) }, lowSpeedLimit: lowSpeedLimit,
                                     lowSpeedTime: .seconds(lowSpeedTime), addressPolicy: addressPolicy)
    }
}

extension TransportOptions {
    /// What fetches a feed, under the images' speed floor and time limits: HTTP for web URLs, files
    /// for the rest. The feed's address is the user's choice, so any address is allowed.
    /// - Throws: ``CommandFailure`` (exit status 1) when libcurl cannot start.
    func makeFeedLoader() throws -> SchemeRoutingDataLoader {
        do {
            return SchemeRoutingDataLoader(network: try HTTPDataLoader(configuration: transport(addressPolicy: .any)))
        } catch {
            throw CommandFailure("cannot start HTTP: \(error)", exitCode: 1)
        }
    }
}
