import Foundation
import TestSupport
import Testing

/// `memory-profile`, the process behind each row of `scripts/memprofile.sh`'s
/// table, on a small feed from the loopback server: every strategy the table
/// compares runs to the end, shows each row its own image, and reports every
/// field the table reads. Then the benchmark script itself, `--quick` on a
/// dozen items, makes its table with every strategy at both speeds.
@Suite struct MemoryProfileTests {
    /// The feed repeats these in order: row n shows photo n mod 3.
    static let photos = ["jpeg-baseline-420-gradient-256x192.jpg", "ref-blocks-256x192.png", "jpeg-cmyk-adobe-blocks-128x64.jpg"]
    static let rows = 12
    static let visibleRows = 4
    /// The table's rows, as `scripts/bench/memprofile.py` runs them: a strategy and its budget in MiB.
    static let strategies: [(name: String, budgetMiB: Int?)] = [("naive", nil), ("window", nil), ("thumbnailer", 8), ("thumbnailer", 32)]
    /// What `memprofile.py` reads from each run's report.
    static let tableFields = ["strategy", "rowsPerSecond", "rowsDisplayed", "rowsShown", "rowsShownWrong", "latencyMedianMs",
                              "latencyP95Ms", "bytesDownloaded", "decodes", "memoryHits", "memoryMisses", "peakRSSBytes", "endRSSBytes"]

    /// Serves the photos under a URL per row and the feed naming them.
    static func serveFeed(on server: TestHTTPServer) throws -> String {
        var urls: [String] = []
        for row in 0..<rows {
            let photo = photos[row % photos.count]
            let path = "/row-\(row).\(photo.split(separator: ".").last!)"
            server.route(path, .init(body: try Fixtures.bytes(ofTestImage: photo)))
            urls.append(server.url(path))
        }
        server.route("/feed.json", .init(body: try JSONSerialization.data(withJSONObject: urls).map { $0 }))
        return server.url("/feed.json")
    }

    @Test func everyStrategyOfTheBenchmarkTableRunsAndReportsWhatTheTableReads() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let feed = try Self.serveFeed(on: server)

        for (strategy, budgetMiB) in Self.strategies {
            let cache = try TemporaryDirectory()
            var arguments = ["--feed", feed, "--strategy", strategy, "--cache-dir", cache.url.path,
                             "--visible-rows", "\(Self.visibleRows)", "--rows-per-second", "20"]
            arguments += Self.photos.flatMap { ["--photos", Fixtures.testImage($0)] }
            arguments += budgetMiB.map { ["--budget-mib", "\($0)"] } ?? []
            let run = try await runBlocking { [arguments] in
                try ChildProcess.run(arguments, executable: ChildProcess.product("memory-profile"),
                                     limits: .init(duration: .seconds(30)))
            }
            let label = Comment(rawValue: "\(strategy) \(budgetMiB.map { "\($0) MiB" } ?? "")")
            try #require(run.status == 0, "\(label): \(run.standardError)")
            let line = try #require(run.standardOutput.split(separator: "\n").last, label)
            let report = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], label)

            #expect(report["strategy"] as? String == strategy)
            #expect(Self.tableFields.filter { report[$0] == nil } == [], "\(label): fields the table reads")
            #expect(report["rows"] as? Int == Self.rows && report["rowsDisplayed"] as? Int == Self.rows, label)
            #expect(report["steps"] as? Int == 2 * (Self.rows - Self.visibleRows) + 1, "\(label): down and back up")
            #expect(report["rowsShownWrong"] as? Int == 0, "\(label): every row showed its own photo")
            #expect((report["rowsShown"] as? Int ?? 0) >= Self.visibleRows, "\(label): at least the rows on screen at the end")
            if let budgetMiB {
                #expect(report["budgetBytes"] as? Int == budgetMiB << 20)
                #expect((report["peakMemoryCacheBytes"] as? Int ?? .max) <= budgetMiB << 20, label)
            }
        }
    }

    @Test func theBenchmarkScriptsQuickTableHasEveryStrategyAtBothSpeeds() async throws {
        let output = try TemporaryDirectory()
        let script = Fixtures.packageRoot.appendingPathComponent("scripts/bench/memprofile.py").path
        let binaries = URL(fileURLWithPath: ChildProcess.product("memory-profile")).deletingLastPathComponent().path
        let run = try await runBlocking {
            try ChildProcess.run([script, binaries, output.url.path, "--quick", "--items", "12"],
                                 executable: "/usr/bin/python3", limits: .init(duration: .seconds(120)))
        }
        try #require(run.status == 0, "\(run.standardError)")

        let table = try String(contentsOf: output.url.appendingPathComponent("results.md"), encoding: .utf8)
        let rows = table.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| strategy") && !$0.hasPrefix("| ---") }
        let labels = Self.strategies.map { strategy, budgetMiB in strategy + (budgetMiB.map { " \($0) MiB" } ?? "") }
        let expected = ["realistic", "fast"].flatMap { speed in labels.map { "| \($0) | \(speed) (" } }
        #expect(rows.count == expected.count, "\(table)")
        for (row, prefix) in zip(rows, expected) {
            #expect(row.hasPrefix(prefix), "\(row) should start with \(prefix)")
            #expect(row.contains("of 12)"), "\(row): 12 rows displayed")
        }
        for plot in ["rss-realistic.svg", "rss-fast.svg"] {
            #expect(FileManager.default.fileExists(atPath: output.url.appendingPathComponent(plot).path), "\(plot)")
        }
    }
}
