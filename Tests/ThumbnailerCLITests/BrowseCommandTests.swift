import Foundation
import TestSupport
import Testing

/// `thumbnailer browse` without a terminal: no tmux needed.
@Suite struct BrowseWithoutATerminalTests {
    @Test func browseRefusesPolitelyWithoutATerminal() async throws {
        let run = try await runBlocking {
            try ChildProcess.run(["browse", Fixtures.testImage("feed.json")])
        }
        #expect(run.status == 1)
        #expect(run.standardError.contains("needs a terminal"), "\(run.standardError)")
    }
}

/// `thumbnailer browse` end to end, in a real terminal: tmux runs it in a
/// detached session, keys are sent with send-keys, the screen is read with
/// capture-pane (with its colours). Skipped without tmux, which
/// `scripts/test.sh` (and so CI) will not run without.
@Suite(.enabled(if: Tmux.isAvailable, "needs tmux")) final class BrowseCommandTests: Sendable {
    let temporary: TemporaryDirectory
    let tmux: Tmux

    init() throws {
        temporary = try TemporaryDirectory()
        tmux = Tmux(socket: "thumbnailer-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    }

    deinit { tmux.killServer() }

    /// The demo feed's items (title and image path), in order.
    static let items: [(title: String, image: String)] = {
        let feed = (try? JSONSerialization.jsonObject(with: Data(Fixtures.bytes(ofTestImage: "feed.json")))) as? [String: Any]
        return (feed?["items"] as? [[String: Any]] ?? []).compactMap { item in
            guard let title = item["title"] as? String, let image = item["image"] as? String else { return nil }
            return (title, image)
        }
    }()

    /// The demo feed's titles, in order.
    static let titles = items.map(\.title)

    /// The screen line showing `title`, with its escape sequences.
    func line(showing title: String) -> String? {
        tmux.capture(colours: true).split(separator: "\n").first { $0.contains(title) }.map(String.init)
    }

    /// Whether the row titled `title` is on screen with 24-bit colour cells beside it.
    func showsImage(of title: String) -> Bool {
        line(showing: title)?.contains("\u{1B}[38;2;") == true
    }

    @Test func browseScrollsShowsThumbnailsAndRestoresTheTerminal() async throws {
        let exitFile = temporary.path("exit")
        let command = "env COLORTERM=truecolor \(ChildProcess.thumbnailer) browse file://\(Fixtures.testImage("feed.json"))"
            + " --cache-dir \(temporary.path("cache")) --row-height 7; echo \"exit $?\" > \(exitFile); sleep 60"
        try tmux.start(command, columns: 120, rows: 40)

        #expect(try await eventually { self.showsImage(of: Self.titles[0]) }, "\(tmux.capture(colours: false))")
        #expect(tmux.capture(colours: false).contains("rows 1–5"))

        tmux.send("G")
        #expect(try await eventually { self.tmux.capture(colours: false).contains("–\(Self.titles.count) ·") })
        #expect(try await eventually { self.showsImage(of: Self.titles[Self.titles.count - 1]) })
        tmux.send("g")
        #expect(try await eventually { self.tmux.capture(colours: false).contains("rows 1–5") })

        for _ in 0..<20 { tmux.send("j") }
        #expect(try await eventually { self.tmux.capture(colours: false).contains("rows 17–21") }, "\(tmux.capture(colours: false))")
        #expect(try await eventually { self.showsImage(of: Self.titles[20]) }, "the newly visible rows get thumbnails")
        #expect(line(showing: Self.titles[20])?.contains("›") == true, "the selection moved with j")

        tmux.send("q")
        #expect(try await eventually { FileManager.default.fileExists(atPath: exitFile) })
        #expect(try String(contentsOfFile: exitFile, encoding: .utf8) == "exit 0\n", "\(tmux.capture(colours: false))")
        #expect(tmux.value("#{alternate_on}") == "0", "the main screen is back")
        #expect(tmux.value("#{cursor_flag}") == "1", "the cursor is visible again")
        #expect(!tmux.capture(colours: false).contains("q quit"), "the list is gone from the screen")
    }

    /// WebP and GIF items show thumbnails like any other, an animation its first frame.
    @Test func webPAndGIFItemsShowThumbnails() async throws {
        let names = ["webp-lossy-gradient-256x192.webp", "webp-lossless-rgba-67x43.webp",
                     "webp-animated-lossy-2-frames-128x96.webp", "gif-palette-67x43.gif", "gif-animated-3-frames-40x30.gif"]
        let feed = temporary.path("feed.json")
        try Data(JSONFeed.listing(names.map { "file://" + Fixtures.testImage($0) })).write(to: URL(fileURLWithPath: feed))
        let command = "env COLORTERM=truecolor \(ChildProcess.thumbnailer) browse file://\(feed)"
            + " --cache-dir \(temporary.path("cache")) --row-height 5; sleep 60"
        try tmux.start(command, columns: 120, rows: 40)
        for name in names {
            #expect(try await eventually { self.showsImage(of: name) }, "\(name): \(tmux.capture(colours: false))")
        }
        #expect(!tmux.capture(colours: false).contains("✗"), "\(tmux.capture(colours: false))")
    }
    /// A front-end machine with an empty disk cache and no origin it can reach
    /// shows what a fleet warmed into the object store. The warm makes the size
    /// browse draws at `--row-height 7` (16×12: 16 columns of two-pixel half blocks, 6 lines).
    @Test(.enabled(if: S3TestStore.isAvailable, "needs python3-swift and memcached"))
    func withAStoreTheThumbnailsAFleetWarmedShowWithNoOriginReachable() async throws {
        let names = ["photo-aitzgorri-baseline-3000x1998.jpg", "photo-life-adam7-rgb-640x480.png", "gif-palette-67x43.gif"]
        let server = try TestHTTPServer()
        for name in names { server.route("/images/\(name)", .init(body: try Fixtures.bytes(ofTestImage: name))) }
        let feed = temporary.path("feed.json")
        try Data(JSONFeed.listing(names.map { server.url("/images/\($0)") })).write(to: URL(fileURLWithPath: feed))
        let store = try await S3TestStore.shared()
        let location = "s3://\(try await store.makeBucket())/fleet"
        let warm = ["warm", "file://\(feed)", "--store", location, "-s", "16x12", "--cache-dir", temporary.path("fleet-cache")]
        let warmed = try await runBlocking { try ChildProcess.run(warm, environment: store.environment, limits: .init()) }
        #expect(warmed.status == 0, "\(warmed.standardError)")
        server.stop()

        let variables = store.environment.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let command = "env COLORTERM=truecolor \(variables) \(ChildProcess.thumbnailer) browse file://\(feed) --store \(location)"
            + " --cache-dir \(temporary.path("front-end-cache")) --row-height 7 --retries 1; sleep 60"
        try tmux.start(command, columns: 120, rows: 40)
        for name in names {
            #expect(try await eventually { self.showsImage(of: name) }, "\(name): \(tmux.capture(colours: false))")
        }
        #expect(!tmux.capture(colours: false).contains("✗"), "\(tmux.capture(colours: false))")
    }
}

/// `browse` as the feed misbehaves: the screen opens at once, shows the feed
/// loading and its retries, then the failure; `r` loads it again. And the
/// captions of a cached feed, which must not change with the tier that answers.
@Suite(.enabled(if: Tmux.isAvailable, "needs tmux")) final class BrowseFeedLoadingTests: Sendable {
    let temporary: TemporaryDirectory
    let tmux: Tmux
    let server: TestHTTPServer

    init() throws {
        temporary = try TemporaryDirectory()
        tmux = Tmux(socket: "thumbnailer-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        server = try TestHTTPServer()
    }

    deinit {
        tmux.killServer()
        server.stop()
    }

    var screen: String { tmux.capture(colours: false) }

    @Test func aFeedThatKeepsFailingShowsItsRetriesThenTheErrorAndRLoadsItOnceTheServerAnswers() async throws {
        server.route("/feed.json", .init(status: 503))
        // Everything browse writes is recorded from its first byte: the loading
        // states pass too quickly for a busy test to be sure to see them on screen.
        let go = temporary.path("go"), output = temporary.path("output")
        let command = "while [ ! -e \(go) ]; do sleep 0.01; done; env COLORTERM=truecolor \(ChildProcess.thumbnailer)"
            + " browse \(server.url("/feed.json")) --cache-dir \(temporary.path("cache")) --retries 4 --row-height 5; sleep 60"
        try tmux.start(command, columns: 120, rows: 30)
        tmux.record(to: output)
        #expect(FileManager.default.createFile(atPath: go, contents: nil))

        #expect(try await eventually { self.screen.contains("✗ r: retry · cannot fetch the feed") }, "\(screen)")
        #expect(screen.contains("503") && screen.contains("r retry · q quit"), "\(screen)")
        #expect(server.requestCount("/feed.json") == 4, "one request per attempt: the fetch itself does not retry")
        // Before the error, the screen was open while the feed was still being fetched, and showed the
        // first wait between attempts (written whole: the frame before it had no message; later ones
        // are written as the cells that changed, and blanks are skipped, hence no spaces).
        let recorded = try String(contentsOfFile: output, encoding: .utf8)
        // Every frame is one synchronized update: begun, ended, and never begun again before its end.
        let marks = recorded.matches(of: /\x{1B}\[\?2026([hl])/).map { $0.output.1 }
        #expect(marks.count >= 4 && marks.enumerated().allSatisfy { $0.element == ($0.offset.isMultiple(of: 2) ? "h" : "l") },
                "\(marks)")
        let written = Self.characters(written: recorded)
        #expect(written.contains("Loading\(server.url("/feed.json"))"), "\(written)")
        // Which waits a frame catches depends on the machine's load (frames are capped at one per
        // 30 ms); that at least one is shown, whole, before the error does not.
        let waits = ["(attempt2of4)", "(attempt3of4)", "(attempt4of4)"].compactMap { written.firstRange(of: $0) }
        #expect(written.contains("retryingin") && !waits.isEmpty, "\(written)")
        if let retrying = waits.min(by: { $0.lowerBound < $1.lowerBound }), let failed = written.firstRange(of: "✗r:retry") {
            #expect(retrying.lowerBound < failed.lowerBound, "the retries come before the error")
        } else {
            Issue.record("no retry or no error written: \(written)")
        }

        let images = try (0..<3).map { number in
            let path = "/photo-\(number).png"
            server.route(path, .init(body: try NumberedImage.png(number)))
            return server.url(path)
        }
        server.route("/feed.json", .init(body: JSONFeed.listing(images)))
        tmux.send("r")
        #expect(try await eventually {
            let coloured = self.tmux.capture(colours: true)
            return (0..<3).allSatisfy { number in
                coloured.split(separator: "\n").contains { $0.contains("photo-\(number).png") && $0.contains("\u{1B}[38;2;") }
            }
        }, "\(screen)")
        #expect(server.requestCount("/feed.json") == 5)
        #expect(screen.contains("3 items"))
    }

    @Test func aSecondBrowseOfACachedFeedShowsEachPhotosSourceSizeNeverTheStoredThumbnails() async throws {
        let shown = BrowseCommandTests.items.prefix(3)
        for run in 1...2 {
            // A tmux server per run: the first one's exit must not race the second one's start.
            let tmux = Tmux(socket: "\(self.tmux.socket)-\(run)")
            defer { tmux.killServer() }
            let exitFile = temporary.path("exit-\(run)")
            let command = "env COLORTERM=truecolor \(ChildProcess.thumbnailer) browse file://\(Fixtures.testImage("feed.json"))"
                + " --cache-dir \(temporary.path("cache")) --row-height 7; echo done > \(exitFile); sleep 60"
            try tmux.start(command, columns: 120, rows: 40)
            for item in shown {
                let header = try #require(TestImagesManifest.entries.first { $0.relativePath == item.image }?.header)
                let sourceSize = "\(header.width)×\(header.height)"
                #expect(try await eventually { Self.caption(of: item.title, on: tmux)?.contains("×") == true },
                        "run \(run): \(tmux.capture(colours: false))")
                let caption = Self.caption(of: item.title, on: tmux)
                #expect(caption?.contains(sourceSize) == true,
                        "run \(run): \(item.title) shows \(caption ?? "nothing"), not its source size \(sourceSize)")
            }
            tmux.send("q")
            #expect(try await eventually { FileManager.default.fileExists(atPath: exitFile) })
        }
    }

    /// The characters in terminal output, in the order written, without escape sequences or spaces.
    static func characters(written output: String) -> String {
        var characters = ""
        var scalars = output.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "\u{1B}" else {
                if scalar != " " { characters.unicodeScalars.append(scalar) }
                continue
            }
            guard scalars.next() == "[" else { continue }
            while let next = scalars.next(), !(0x40...0x7E).contains(next.value) {}
        }
        return characters
    }

    /// The line under `title`'s on `tmux`'s screen: the row's caption.
    static func caption(of title: String, on tmux: Tmux) -> String? {
        let lines = tmux.capture(colours: false).split(separator: "\n", omittingEmptySubsequences: false)
        return lines.firstIndex { $0.contains(title) }.flatMap { $0 + 1 < lines.count ? String(lines[$0 + 1]) : nil }
    }
}

/// A tmux server of the test's own (`-L socket`), with one session.
struct Tmux: Sendable {
    let socket: String
    static let session = "browse"

    static var isAvailable: Bool {
        (try? ChildProcess.run(["tmux", "-V"], executable: "/usr/bin/env").status) == 0
    }

    func run(_ arguments: [String]) -> ChildProcess.Outcome? {
        try? ChildProcess.run(["tmux", "-L", socket] + arguments, executable: "/usr/bin/env")
    }

    func start(_ command: String, columns: Int, rows: Int) throws {
        let outcome = run(["new-session", "-d", "-s", Self.session, "-x", "\(columns)", "-y", "\(rows)", command])
        guard outcome?.status == 0 else { throw TmuxFailure(output: outcome?.standardError ?? "tmux did not run") }
    }

    /// Appends everything the session's program writes from now on to the file at `path`.
    func record(to path: String) {
        _ = run(["pipe-pane", "-t", Self.session, "cat >> \(path)"])
    }

    func send(_ key: String) {
        _ = run(["send-keys", "-t", Self.session, key])
    }

    func capture(colours: Bool) -> String {
        run(["capture-pane", "-p", "-t", Self.session] + (colours ? ["-e"] : []))?.standardOutput ?? ""
    }

    func value(_ format: String) -> String {
        (run(["display-message", "-p", "-t", Self.session, format])?.standardOutput ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func killServer() {
        _ = run(["kill-server"])
    }
}

struct TmuxFailure: Error {
    let output: String
}
