import Foundation
import TestSupport
import Testing

/// Size and count limits on the command line, through the built binary: 0 is
/// a usage error (exit 64) that names the option, never "no limit"; only an
/// option whose help says so takes `unlimited`. (Before, `--max-download-bytes 0`
/// pulled an endless body to 1 GiB and `--max-feed-bytes 0` read an endless feed to 3 GiB.)
@Suite struct LimitOptionTests {
    let temporary: TemporaryDirectory
    /// A local feed of one small local image: a command that passes validation needs no network.
    let feed: String

    init() throws {
        temporary = try TemporaryDirectory()
        feed = temporary.path("feed.json")
        let image = "file://" + Fixtures.testImage("jpeg-baseline-420-gradient-256x192.jpg")
        try Data(JSONFeed.listing([image])).write(to: URL(fileURLWithPath: feed))
    }

    /// Every size and count limit of every command, each at 0.
    static let zeroLimits: [(command: [String], option: String)] = [
        (["warm", "FEED"], "--max-download-bytes"), (["warm", "FEED"], "--max-feed-bytes"),
        (["warm", "FEED"], "--disk-limit"), (["warm", "FEED"], "--low-speed-limit"),
        (["warm", "FEED"], "--low-speed-time"), (["warm", "FEED"], "--transfer-timeout"),
        (["warm", "FEED"], "--retries"), (["warm", "FEED"], "--concurrency"),
        (["warm", "FEED"], "--decoders"), (["warm", "FEED"], "--shard-count"),
        (["browse", "FEED"], "--memory-budget"), (["browse", "FEED"], "--max-download-bytes"),
        (["cache", "stats"], "--disk-limit"),
    ]

    func run(_ command: [String], _ options: [String]) async throws -> ChildProcess.Outcome {
        let arguments = command.map { $0 == "FEED" ? feed : $0 } + ["--cache-dir", temporary.path("cache")] + options
        return try await ChildProcess.run(arguments, environment: ["JOB_COMPLETION_INDEX": "0"])
    }

    @Test(arguments: zeroLimits.indices)
    func zeroIsAUsageErrorNamingTheOption(index: Int) async throws {
        let (command, option) = Self.zeroLimits[index]
        let run = try await run(command, [option, "0"])
        #expect(run.status == 64, "\(command) \(option) 0: \(run.standardOutput) \(run.standardError)")
        #expect(run.standardError.contains("\(option) must be at least 1"), "\(run.standardError)")
    }

    @Test func theTransferTimeoutAloneMayBeLifted() async throws {
        let lifted = try await run(["warm", "FEED"], ["--transfer-timeout", "unlimited"])
        #expect(lifted.status == 0, "\(lifted.standardError)")
        await #expect(try run(["warm", "FEED"], ["--transfer-timeout", "0"]).standardError.contains("say unlimited for no limit"))

        for option in ["--max-download-bytes", "--max-feed-bytes", "--disk-limit", "--retries", "--concurrency"] {
            let refused = try await run(["warm", "FEED"], [option, "unlimited"])
            #expect(refused.status == 64, "\(option) unlimited: \(refused.standardError)")
        }
    }

    @Test func theHelpSaysSo() async throws {
        // Help is wrapped to the terminal's width: compare words, not lines.
        func words(_ arguments: [String]) async throws -> String {
            try await ChildProcess.run(arguments).standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        let help = try await words(["warm", "--help"])
        #expect(help.contains("e.g. 50M (at least 1 byte; no unlimited)"), "\(help)")
        #expect(help.contains("may take in all (at least 1), or unlimited"), "\(help)")
        await #expect(try words(["--help"]).contains("0 is a usage error (exit 64), never \"no limit\""))
    }
}
