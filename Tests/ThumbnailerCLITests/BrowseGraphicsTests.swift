import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// `browse` with real pixels, end to end in a real terminal: xterm as a VT340
/// (sixel graphics) on an X server of the test's own, screenshots with xwd,
/// keys with xdotool. Skipped, saying why, where Xvfb cannot run. One at a time: each
/// takes the first free display number.
@Suite(.serialized, .enabled(if: VirtualDisplay.unavailableReason == nil, "\(VirtualDisplay.unavailableReason ?? "")"))
final class BrowseGraphicsTests: Sendable {
    let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory()
    }

    /// The first item's thumbnail as browse makes it in xterm's 6×13 font: 16 columns × 6 lines
    /// of cells, at their pixel size, over black; RGB.
    static func firstThumbnail() throws -> (rgb: [UInt8], width: Int, height: Int) {
        let feed = try JSONSerialization.jsonObject(with: Data(Fixtures.bytes(ofTestImage: "feed.json"))) as? [String: Any]
        let first = try #require((feed?["items"] as? [[String: Any]])?.first?["image"] as? String)
        let thumbnail = try ThumbnailDecoder(size: .fit(width: 16 * 6, height: 6 * 13))
            .decode(contentsOfFile: Fixtures.testImage(first))
        var rgb: [UInt8] = []
        for y in 0..<thumbnail.height {
            for x in 0..<thumbnail.width {
                let pixel = thumbnail.pixel(x: x, y: y)
                for channel in [pixel.r, pixel.g, pixel.b] { rgb.append(UInt8((Int(channel) * Int(pixel.a) + 127) / 255)) }
            }
        }
        return (rgb, thumbnail.width, thumbnail.height)
    }

    /// The best match of the first thumbnail within 16 pixels right and down of `x`, `y`, once it
    /// reaches 25 dB or after about 20 s of screenshots.
    static func findFirstThumbnail(on display: VirtualDisplay, nearX x: Int, y: Int) async throws -> (psnr: Double, x: Int, y: Int) {
        let reference = try firstThumbnail()
        var match = (psnr: -Double.infinity, x: x, y: y)
        for _ in 0..<100 where match.psnr < 25 {
            let screen = try await runBlocking { try display.screenshot(width: x + 160, height: y + 120) }
            match = screen.bestMatch(of: reference.rgb, width: reference.width, height: reference.height,
                                     nearX: x, y: y, search: 16)
            if match.psnr < 25 { try await Task.sleep(for: .milliseconds(200)) }
        }
        return match
    }

    /// Whether, within about 20 s, the first thumbnail is gone from where `match` found it (below 15 dB).
    static func firstThumbnailLeaves(_ match: (psnr: Double, x: Int, y: Int), on display: VirtualDisplay) async throws -> Bool {
        let reference = try firstThumbnail()
        for _ in 0..<100 {
            let screen = try await runBlocking { try display.screenshot(width: match.x + 160, height: match.y + 120) }
            if screen.peakSignalToNoiseRatio(atX: match.x, y: match.y, width: reference.width, height: reference.height,
                                             against: reference.rgb) < 15 { return true }
            try await Task.sleep(for: .milliseconds(200))
        }
        return false
    }

    /// Presses q in the window at `x`, `y`, and expects browse to exit 0 (the shell writes its status to `exit`).
    func quit(on display: VirtualDisplay, atX x: Int = 200, y: Int = 200) async throws {
        try await runBlocking { try display.type(["q"], at: x, y: y) }
        let exitFile = temporary.path("exit")
        #expect(try await eventually(within: .seconds(30)) { FileManager.default.fileExists(atPath: exitFile) })
        #expect((try? String(contentsOfFile: exitFile, encoding: .utf8)) == "0\n")
    }

    /// `browse` of TestImages/feed.json, then its exit status into `exit`; in a shell that stays a while.
    func browseCommand(_ arguments: String = "") -> String {
        "\(ChildProcess.thumbnailer) browse file://\(Fixtures.testImage("feed.json"))"
            + " --cache-dir \(temporary.path("cache")) \(arguments) 2> \(temporary.path("stderr"));"
            + " echo $? > \(temporary.path("exit")); sleep 30"
    }

    @Test(.timeLimit(.minutes(3)))
    func inXtermAsAVT340TheThumbnailsAreSixelsOfTheirPixelsAndJScrollsThem() async throws {
        let display = try await runBlocking { try VirtualDisplay() }
        let xterm = try display.start(["/usr/bin/xterm", "-ti", "vt340", "-fn", "6x13", "-geometry", "100x40+0+0",
                                       "-e", "sh", "-c", browseCommand()])
        defer { _ = xterm.kill() }

        // The first row's thumbnail, found near the top left (xterm's borders), drawn by auto-detected sixel.
        let match = try await Self.findFirstThumbnail(on: display, nearX: 0, y: 0)
        #expect(match.psnr >= 25, "the first thumbnail on screen: \(match.psnr) dB at \(match.x), \(match.y)")

        // Five rows down: the list scrolls, and another picture takes the first row's place.
        try await runBlocking { try display.type(Array(repeating: "j", count: 5)) }
        #expect(try await Self.firstThumbnailLeaves(match, on: display), "the screen moved after j×5")
        try await quit(on: display)
    }

    /// tmux with its status line on top and `browse` in the right-hand pane of a split: the pane
    /// begins at row 1, column 51 of the 100-column xterm.
    func startTmux(on display: VirtualDisplay, passthrough: Bool, browseArguments: String) throws -> (ChildProcess.Running, Tmux) {
        let tmux = Tmux(socket: "thumbnailer-test-\(getpid())-\(passthrough)")
        let configuration = temporary.path("tmux.conf")
        try "set -g allow-passthrough \(passthrough ? "on" : "off")\nset -g status-position top\n"
            .write(toFile: configuration, atomically: true, encoding: .utf8)
        let xterm = try display.start([
            "/usr/bin/xterm", "-ti", "vt340", "-fn", "6x13", "-geometry", "100x40+0+0",
            "-e", "tmux", "-L", tmux.socket, "-f", configuration, "new-session", "sleep 600", ";",
            "split-window", "-h", "-l", "49", browseCommand(browseArguments),
        ])
        return (xterm, tmux)
    }

    @Test(.timeLimit(.minutes(3)), .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "needs tmux"))
    func insideTmuxThatAllowsPassthroughTheSixelsReachXtermAtThePanesPlace() async throws {
        let display = try await runBlocking { try VirtualDisplay() }
        let (xterm, tmux) = try startTmux(on: display, passthrough: true, browseArguments: "")
        defer {
            tmux.killServer()
            _ = xterm.kill()
        }

        // The pane's first thumbnail: 51 columns right and one line down of where it is without tmux.
        let match = try await Self.findFirstThumbnail(on: display, nearX: 51 * 6, y: 13)
        #expect(match.psnr >= 25, "the first thumbnail in the pane: \(match.psnr) dB at \(match.x), \(match.y)")

        try await runBlocking { try display.type(Array(repeating: "j", count: 5), at: 450, y: 200) }
        #expect(try await Self.firstThumbnailLeaves(match, on: display), "the pane moved after j×5")
        try await quit(on: display, atX: 450, y: 200)
    }

    @Test(.timeLimit(.minutes(3)), .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "needs tmux"))
    func insideTmuxWithoutPassthroughSixelAskedForByNameIsHalfBlocksAndSaysWhy() async throws {
        let display = try await runBlocking { try VirtualDisplay() }
        let (xterm, tmux) = try startTmux(on: display, passthrough: false, browseArguments: "--graphics sixel")
        defer {
            tmux.killServer()
            _ = xterm.kill()
        }

        // Half blocks: the mosaic (text tmux shows), never the thumbnail's own pixels.
        let reference = try Self.firstThumbnail()
        var best = -Double.infinity
        for _ in 0..<20 {
            let screen = try await runBlocking { try display.screenshot(width: 640, height: 160) }
            best = max(best, screen.bestMatch(of: reference.rgb, width: reference.width, height: reference.height,
                                              nearX: 51 * 6, y: 13, search: 16).psnr)
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(best < 25, "no sixel got through: \(best) dB")

        try await quit(on: display, atX: 450, y: 200)
        let note = try String(contentsOfFile: temporary.path("stderr"), encoding: .utf8)
        #expect(note.contains("allow-passthrough on"), "\(note)")
    }
}
