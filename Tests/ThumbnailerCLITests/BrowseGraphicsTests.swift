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

    /// Item `index`'s thumbnail (the first by default) as browse makes it for 16 columns × 6 lines
    /// of cells of `cell` pixels (xterm's 6×13 font by default), over black; RGB.
    static func firstThumbnail(item index: Int = 0, cell: (width: Int, height: Int) = (6, 13)) throws
        -> (rgb: [UInt8], width: Int, height: Int) {
        let feed = try JSONSerialization.jsonObject(with: Data(Fixtures.bytes(ofTestImage: "feed.json"))) as? [String: Any]
        let first = try #require((feed?["items"] as? [[String: Any]])?[index]["image"] as? String)
        let thumbnail = try ThumbnailDecoder(size: .fit(width: 16 * cell.width, height: 6 * cell.height))
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
    /// reaches `enough` dB or after about 20 s of screenshots.
    static func findFirstThumbnail(on display: VirtualDisplay, nearX x: Int, y: Int, enough: Double = 25,
                                   reference: (rgb: [UInt8], width: Int, height: Int)? = nil,
                                   window: String? = nil, search: Int = 16) async throws -> (psnr: Double, x: Int, y: Int) {
        let reference = try reference ?? firstThumbnail()
        var match = (psnr: -Double.infinity, x: x, y: y)
        for _ in 0..<100 where match.psnr < enough {
            let screen = try await runBlocking {
                try window.map { try display.screenshot(ofWindowClass: $0, width: x + 240, height: y + 200) }
                    ?? display.screenshot(width: x + 160, height: y + 120)
            }
            match = screen.bestMatch(of: reference.rgb, width: reference.width, height: reference.height,
                                     nearX: x, y: y, search: search)
            if match.psnr < enough { try await Task.sleep(for: .milliseconds(200)) }
        }
        return match
    }

    /// Whether, within about 20 s, the second item's thumbnail shows where `match` found the first
    /// (≥ 25 dB within 2 pixels): the list scrolled a row, and its image is in the right place.
    static func secondThumbnailTakesTheFirstsPlace(_ match: (psnr: Double, x: Int, y: Int), on display: VirtualDisplay,
                                                   cell: (width: Int, height: Int) = (6, 13),
                                                   window: String? = nil) async throws -> Bool {
        let second = try firstThumbnail(item: 1, cell: cell)
        let found = try await findFirstThumbnail(on: display, nearX: max(0, match.x - 1), y: max(0, match.y - 1),
                                                 reference: second, window: window, search: 2)
        return found.psnr >= 25
    }

    /// Presses j until the list scrolls one row: once to each visible row, and once more.
    static func scrollOneRow(on display: VirtualDisplay, terminalRows: Int, atX x: Int = 200, y: Int = 200) async throws {
        try await runBlocking { try display.type(Array(repeating: "j", count: (terminalRows - 1) / 7), at: x, y: y) }
    }

    /// Presses q in the window at `x`, `y`, and expects browse to exit 0 (the shell writes its status to `exit`).
    func quit(on display: VirtualDisplay, atX x: Int = 200, y: Int = 200) async throws {
        try await runBlocking { try display.type(["q"], at: x, y: y) }
        let exitFile = temporary.path("exit")
        #expect(try await eventually(within: .seconds(30)) { FileManager.default.fileExists(atPath: exitFile) })
        #expect((try? String(contentsOfFile: exitFile, encoding: .utf8)) == "0\n")
    }

    /// `browse` of TestImages/feed.json in 24-bit colour (xterm drops `COLORTERM`), then its exit
    /// status into `exit`; in a shell that stays a while.
    func browseCommand(_ arguments: String = "") -> String {
        "env COLORTERM=truecolor \(ChildProcess.thumbnailer) browse file://\(Fixtures.testImage("feed.json"))"
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

        // Down a row: the terminal moves the images, and the second row's takes the first's place.
        try await Self.scrollOneRow(on: display, terminalRows: 40)
        #expect(try await Self.secondThumbnailTakesTheFirstsPlace(match, on: display), "the list scrolled a row")
        try await quit(on: display)
    }

    /// kitty in an 800 × 500 window, its default font at 10 points, running `program`.
    func kitty(running program: [String]) -> [String] {
        ["/usr/bin/kitty", "--config", "NONE", "-o", "font_size=10", "-o", "background=black",
         "-o", "remember_window_size=no", "-o", "initial_window_width=800", "-o", "initial_window_height=500"] + program
    }

    /// kitty draws with OpenGL: Mesa's software renderer, with no GPU.
    static let kittyEnvironment = ["LIBGL_ALWAYS_SOFTWARE": "1"]

    /// A shell command that writes the terminal's rows, columns and their pixels (`TIOCGWINSZ`) for ``probedCellSize()``.
    func cellSizeProbe() throws -> String {
        try """
            import fcntl, struct, termios
            print(*struct.unpack("HHHH", fcntl.ioctl(0, termios.TIOCGWINSZ, bytes(8))))
            """.write(toFile: temporary.path("probe.py"), atomically: true, encoding: .utf8)
        return "python3 \(temporary.path("probe.py")) > \(temporary.path("window-size")); "
    }

    /// One cell's pixel size and the terminal's rows, from what ``cellSizeProbe()`` wrote.
    func probedCellSize() async throws -> (cell: (width: Int, height: Int), rows: Int) {
        let path = temporary.path("window-size")
        let fields = { ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(whereSeparator: \.isWhitespace).compactMap { Int($0) } }
        #expect(try await eventually(within: .seconds(30)) { fields().count == 4 })
        try #require(fields().count == 4 && fields().allSatisfy { $0 > 0 }, "rows, columns and their pixels: \(fields())")
        let (rows, columns, width, height) = (fields()[0], fields()[1], fields()[2], fields()[3])
        return ((width / columns, height / rows), rows)
    }

    /// kitty, which draws with OpenGL (Mesa's software renderer here): auto-detection finds its
    /// graphics protocol, and the thumbnail is on screen at its pixels.
    @Test(.timeLimit(.minutes(3)), .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/kitty"),
                                            "needs kitty (Debian: kitty, libgl1-mesa-dri)"))
    func inKittyTheThumbnailsAreKittyGraphicsOfTheirPixelsAndJScrollsThem() async throws {
        let display = try await runBlocking { try VirtualDisplay() }
        let kitty = try display.start(kitty(running: ["sh", "-c", cellSizeProbe() + browseCommand()]), environment: Self.kittyEnvironment)
        defer { _ = kitty.kill() }
        let (cell, rows) = try await probedCellSize()
        let reference = try Self.firstThumbnail(cell: cell)

        let match = try await Self.findFirstThumbnail(on: display, nearX: 0, y: 0, reference: reference, window: "kitty")
        #expect(match.psnr >= 25, "the first thumbnail in kitty: \(match.psnr) dB at \(match.x), \(match.y)")

        try await Self.scrollOneRow(on: display, terminalRows: rows)
        #expect(try await Self.secondThumbnailTakesTheFirstsPlace(match, on: display, cell: cell, window: "kitty"),
                "the list scrolled a row")
        try await quit(on: display)
    }

    /// What the 25 dB above tells apart: the same cells in true-colour half blocks stay well below.
    @Test(.timeLimit(.minutes(3)))
    func inTheSameXtermHalfBlocksOfTheFirstThumbnailStayBelow25dB() async throws {
        let display = try await runBlocking { try VirtualDisplay() }
        let xterm = try display.start(["/usr/bin/xterm", "-ti", "vt340", "-fn", "6x13", "-geometry", "100x40+0+0",
                                       "-e", "sh", "-c", browseCommand("--graphics blocks")])
        defer { _ = xterm.kill() }
        // Drawn once it resembles the thumbnail at all; then the best of a few more looks.
        var match = try await Self.findFirstThumbnail(on: display, nearX: 0, y: 0, enough: 12)
        #expect(match.psnr >= 12, "the mosaic is drawn: \(match.psnr) dB")
        for _ in 0..<3 {
            try await Task.sleep(for: .milliseconds(300))
            let again = try await Self.findFirstThumbnail(on: display, nearX: 0, y: 0, enough: -.infinity)
            if again.psnr > match.psnr { match = again }
        }
        #expect(match.psnr < 25, "half blocks: \(match.psnr) dB at \(match.x), \(match.y)")
        try await quit(on: display)
    }

    /// tmux with its status line on top and `browse` in the right-hand pane of a split: the pane
    /// begins at row 1, column 51 of the 100-column xterm.
    func startTmux(on display: VirtualDisplay, inKitty: Bool = false, passthrough: Bool,
                   browseArguments: String) throws -> (ChildProcess.Running, Tmux) {
        let tmux = Tmux(socket: "thumbnailer-test-\(getpid())-\(inKitty)-\(passthrough)")
        let configuration = temporary.path("tmux.conf")
        try "set -g allow-passthrough \(passthrough ? "on" : "off")\nset -g status-position top\n"
            .write(toFile: configuration, atomically: true, encoding: .utf8)
        let session = ["tmux", "-L", tmux.socket, "-f", configuration, "new-session", "sleep 600", ";",
                       "split-window", "-h", "-l", "49", (inKitty ? try cellSizeProbe() : "") + browseCommand(browseArguments)]
        let terminal = inKitty
            ? try display.start(kitty(running: session), environment: Self.kittyEnvironment)
            : try display.start(["/usr/bin/xterm", "-ti", "vt340", "-fn", "6x13", "-geometry", "100x40+0+0", "-e"] + session)
        return (terminal, tmux)
    }

    @Test(.timeLimit(.minutes(3)), .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")
                                               && FileManager.default.isExecutableFile(atPath: "/usr/bin/kitty"), "needs tmux and kitty"))
    func insideTmuxInKittyTheKittyGraphicsReachKittyAtThePanesPlace() async throws {
        let display = try await runBlocking { try VirtualDisplay() }
        let (kitty, tmux) = try startTmux(on: display, inKitty: true, passthrough: true, browseArguments: "")
        defer {
            tmux.killServer()
            _ = kitty.kill()
        }
        let (cell, rows) = try await probedCellSize()
        let reference = try Self.firstThumbnail(cell: cell)
        let match = try await Self.findFirstThumbnail(on: display, nearX: 51 * cell.width, y: cell.height,
                                                      reference: reference, window: "kitty")
        #expect(match.psnr >= 25, "the first thumbnail in the pane: \(match.psnr) dB at \(match.x), \(match.y)")
        try await Self.scrollOneRow(on: display, terminalRows: rows, atX: 600)
        #expect(try await Self.secondThumbnailTakesTheFirstsPlace(match, on: display, cell: cell, window: "kitty"),
                "the pane scrolled a row")
        try await quit(on: display, atX: 600, y: 200)
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

        try await Self.scrollOneRow(on: display, terminalRows: 39, atX: 450)  // the pane: 40 lines less the status line
        #expect(try await Self.secondThumbnailTakesTheFirstsPlace(match, on: display), "the pane scrolled a row")
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
