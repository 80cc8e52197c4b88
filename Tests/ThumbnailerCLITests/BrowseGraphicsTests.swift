import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// `browse` with real pixels, end to end in a real terminal: xterm as a VT340
/// (sixel graphics) on an X server of the test's own, screenshots with xwd,
/// keys with xdotool. Skipped, saying why, where Xvfb cannot run.
@Suite(.enabled(if: VirtualDisplay.unavailableReason == nil, "\(VirtualDisplay.unavailableReason ?? "")"))
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

    @Test(.timeLimit(.minutes(3)))
    func inXtermAsAVT340TheThumbnailsAreSixelsOfTheirPixelsAndJScrollsThem() async throws {
        let display = try await runBlocking { try VirtualDisplay() }
        let exitFile = temporary.path("exit")
        let command = "\(ChildProcess.thumbnailer) browse file://\(Fixtures.testImage("feed.json"))"
            + " --cache-dir \(temporary.path("cache")); echo $? > \(exitFile); sleep 30"
        let xterm = try display.start(["/usr/bin/xterm", "-ti", "vt340", "-fn", "6x13", "-geometry", "100x40+0+0",
                                       "-e", "sh", "-c", command])
        defer { VirtualDisplay.kill(xterm) }
        let reference = try Self.firstThumbnail()

        // The first row's thumbnail, found near the top left (xterm's borders), drawn by auto-detected sixel.
        var match = (psnr: -Double.infinity, x: 0, y: 0)
        for _ in 0..<100 where match.psnr < 25 {
            let screen = try await runBlocking { try display.screenshot(width: 160, height: 120) }
            match = screen.bestMatch(of: reference.rgb, width: reference.width, height: reference.height,
                                     nearX: 0, y: 0, search: 16)
            if match.psnr < 25 { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(match.psnr >= 25, "the first thumbnail on screen: \(match.psnr) dB at \(match.x), \(match.y)")

        // Five rows down: the list scrolls, and another picture takes the first row's place.
        try await runBlocking { try display.type(Array(repeating: "j", count: 5)) }
        var moved = false
        for _ in 0..<100 where !moved {
            let screen = try await runBlocking { try display.screenshot(width: 160, height: 120) }
            moved = screen.peakSignalToNoiseRatio(atX: match.x, y: match.y, width: reference.width, height: reference.height,
                                                  against: reference.rgb) < 15
            if !moved { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(moved, "the screen moved after j×5")

        try await runBlocking { try display.type(["q"]) }
        #expect(try await eventually(within: .seconds(30)) { FileManager.default.fileExists(atPath: exitFile) })
        #expect((try? String(contentsOfFile: exitFile, encoding: .utf8)) == "0\n")
    }
}
