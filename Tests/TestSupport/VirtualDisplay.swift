import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An X server of the test's own (Xvfb) to run real terminal emulators in:
/// programs started on it, keys typed with xdotool (XTEST, to the window under
/// the pointer: there is no window manager to give focus), screenshots with xwd.
public final class VirtualDisplay: Sendable {
    /// Why no display can run here, for a skip message; `nil` when one can.
    public static let unavailableReason: String? = {
        let tools = ["/usr/bin/Xvfb", "/usr/bin/xterm", "/usr/bin/xwd", "/usr/bin/xdotool"]
        var missing = tools.filter { !FileManager.default.isExecutableFile(atPath: $0) }
        if !FileManager.default.fileExists(atPath: fixedFont) { missing.append(fixedFont) }
        return missing.isEmpty ? nil : "missing \(missing.joined(separator: ", ")) (Debian: xvfb, xterm, x11-apps, xdotool, xfonts-base)"
    }()

    /// The font the terminal tests use (`-fn 6x13`): cells of 6 × 13 pixels.
    public static let fixedFont = "/usr/share/fonts/X11/misc/6x13-ISO8859-1.pcf.gz"

    public let display: String
    private let server: ChildProcess.Running

    /// Starts Xvfb on a display number it finds free itself, `width` × `height` at 24 bits, and
    /// waits until it is ready: Xvfb writes the number to its standard output then (`-displayfd`).
    /// Picking a number here by the files in /tmp raced with stale ones: every killed server
    /// leaves its socket and lock behind, and once 100 runs had filled the range, tests met a
    /// socket whose server was gone.
    public init(width: Int = 1024, height: Int = 768) throws {
        server = try ChildProcess.start(["-displayfd", "1", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp"],
                                        executable: "/usr/bin/Xvfb")
        let deadline = Date().addingTimeInterval(20)
        while Int(server.standardOutputSoFar.trimmingCharacters(in: .whitespacesAndNewlines)) == nil {
            guard Date() < deadline, kill(server.pid, 0) == 0 else {
                _ = server.kill()
                throw DisplayError(message: "Xvfb did not start")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        display = ":" + server.standardOutputSoFar.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// SIGTERM, which Xvfb takes to remove its socket and lock (its children start with no signal
    /// blocked); SIGKILL should it still run after 5 s.
    deinit {
        server.signal(SIGTERM)
        _ = server.wait(within: ChildProcess.Limits(duration: .seconds(5)))
    }

    /// Starts `arguments[0]` on this display, with no signal blocked (a `Process` started from a
    /// test thread inherits the thread's mask: an xterm that never took SIGCHLD from its tmux
    /// client stayed a zombie Foundation never reaped); the caller ends it with `kill()`.
    public func start(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess.Running {
        try ChildProcess.start(Array(arguments.dropFirst()), executable: arguments[0],
                               environment: environment.merging(["DISPLAY": display]) { _, new in new })
    }

    /// Types `keys` (xdotool key names) into the window under the pointer, which is moved to `x`, `y` first.
    public func type(_ keys: [String], at x: Int = 200, y: Int = 200) throws {
        try run(["/usr/bin/xdotool", "mousemove", String(x), String(y)])
        for key in keys {
            try run(["/usr/bin/xdotool", "key", key])
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    /// The `width` × `height` pixels of the screen from its top left corner, now.
    public func screenshot(width: Int = .max, height: Int = .max) throws -> XWindowDump {
        try dump(["-root"], width: width, height: height)
    }

    /// The `width` × `height` pixels of the first window of class `windowClass` from its top left
    /// corner, now: for a program that draws with OpenGL (kitty), whose window a dump of the root
    /// window does not show as it is.
    public func screenshot(ofWindowClass windowClass: String, width: Int = .max, height: Int = .max) throws -> XWindowDump {
        let search = try start(["/usr/bin/xdotool", "search", "--class", windowClass]).wait()
        guard search.status == 0, let window = search.standardOutput.split(separator: "\n").first else {
            throw DisplayError(message: "no window of class \(windowClass)")
        }
        return try dump(["-id", String(window)], width: width, height: height)
    }

    private func dump(_ target: [String], width: Int, height: Int) throws -> XWindowDump {
        let directory = try TemporaryDirectory()
        let path = directory.path("screen.xwd")
        try run(["/usr/bin/xwd"] + target + ["-silent", "-out", path])
        return try XWindowDump(contentsOf: path, width: width, height: height)
    }

    private func run(_ arguments: [String]) throws {
        let status = try start(arguments).wait().status
        guard status == 0 else { throw DisplayError(message: "\(arguments[0]) exited with \(status)") }
    }

    struct DisplayError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}

/// A region of an X window dump (`xwd`) of a 24- or 32-bit TrueColor screen, as RGB.
public struct XWindowDump: Sendable {
    public let width: Int
    public let height: Int
    /// RGB8, row by row.
    public let rgb: [UInt8]

    /// The `width` × `height` pixels from `x`, `y` of the dump at `path` (clipped to the screen).
    public init(contentsOf path: String, x: Int = 0, y: Int = 0, width: Int = .max, height: Int = .max) throws {
        let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        func field(_ index: Int) -> Int {
            Int(data[index * 4]) << 24 | Int(data[index * 4 + 1]) << 16 | Int(data[index * 4 + 2]) << 8 | Int(data[index * 4 + 3])
        }
        let headerSize = field(0), depth = field(3), screenWidth = field(4), screenHeight = field(5)
        let littleEndian = field(7) == 0, bitsPerPixel = field(11), bytesPerLine = field(12)
        let shifts = (field(14).trailingZeroBitCount, field(15).trailingZeroBitCount, field(16).trailingZeroBitCount)
        guard bitsPerPixel == 32, depth == 24 || depth == 32 else { throw VirtualDisplay.DisplayError(message: "xwd: \(depth)-bit") }
        self.width = max(0, min(width, screenWidth - x))
        self.height = max(0, min(height, screenHeight - y))
        let start = headerSize + field(19) * 12
        var rgb = [UInt8](repeating: 0, count: self.width * self.height * 3)
        var index = 0
        for row in y..<(y + self.height) {
            var offset = start + row * bytesPerLine + x * 4
            for _ in 0..<self.width {
                let pixel = littleEndian
                    ? Int(data[offset]) | Int(data[offset + 1]) << 8 | Int(data[offset + 2]) << 16 | Int(data[offset + 3]) << 24
                    : Int(data[offset]) << 24 | Int(data[offset + 1]) << 16 | Int(data[offset + 2]) << 8 | Int(data[offset + 3])
                rgb[index] = UInt8(truncatingIfNeeded: pixel >> shifts.0)
                rgb[index + 1] = UInt8(truncatingIfNeeded: pixel >> shifts.1)
                rgb[index + 2] = UInt8(truncatingIfNeeded: pixel >> shifts.2)
                index += 3
                offset += 4
            }
        }
        self.rgb = rgb
    }

    /// PSNR over RGB between the `width` × `height` region at `x`, `y` and `reference` (RGB8 of that size).
    public func peakSignalToNoiseRatio(atX x: Int, y: Int, width: Int, height: Int, against reference: [UInt8]) -> Double {
        var squares = 0
        for row in 0..<height {
            let screenRow = ((y + row) * self.width + x) * 3, referenceRow = row * width * 3
            for index in 0..<(width * 3) {
                let difference = Int(rgb[screenRow + index]) - Int(reference[referenceRow + index])
                squares += difference * difference
            }
        }
        let mean = Double(squares) / Double(width * height * 3)
        return mean == 0 ? .infinity : 10 * log10(255 * 255 / mean)
    }

    /// The best PSNR of `reference` placed anywhere within `search` pixels right and down of `x`, `y`, and where.
    public func bestMatch(of reference: [UInt8], width: Int, height: Int, nearX x: Int, y: Int,
                          search: Int) -> (psnr: Double, x: Int, y: Int) {
        var best = (psnr: -Double.infinity, x: x, y: y)
        for dy in 0...search where y + dy + height <= self.height {
            for dx in 0...search where x + dx + width <= self.width {
                let psnr = peakSignalToNoiseRatio(atX: x + dx, y: y + dy, width: width, height: height, against: reference)
                if psnr > best.psnr { best = (psnr, x + dx, y + dy) }
            }
        }
        return best
    }
}
