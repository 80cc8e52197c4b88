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

    /// The demo feed's titles, in order.
    static let titles: [String] = {
        let feed = (try? JSONSerialization.jsonObject(with: Data(Fixtures.bytes(ofTestImage: "feed.json")))) as? [String: Any]
        return (feed?["items"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
    }()

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
