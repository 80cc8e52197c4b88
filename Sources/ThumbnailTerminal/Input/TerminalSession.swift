#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The terminal while a full-screen program runs: raw input (keys arrive one
/// by one, unechoed, Ctrl-C as a byte), the alternate screen, a hidden cursor.
/// ``restore()`` puts everything back; it is idempotent, so every exit path
/// (quit, Ctrl-C, SIGTERM, an error) can call it.
@MainActor package final class TerminalSession {
    private let input: Int32
    private let output: Int32
    private var original: termios?

    /// Why there is no terminal to take over.
    package enum Problem: Error, CustomStringConvertible {
        case notATerminal

        package var description: String {
            "browse needs a terminal: stdin and stdout must be a terminal, not a pipe or a file"
        }
    }

    /// - Throws: ``Problem/notATerminal`` when stdin or stdout is not a terminal.
    package init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) throws {
        guard isatty(input) == 1, isatty(output) == 1 else { throw Problem.notATerminal }
        self.input = input
        self.output = output
    }

    /// Raw mode, the alternate screen, no cursor.
    package func enter() {
        var settings = termios()
        guard tcgetattr(input, &settings) == 0 else { return }
        original = settings
        // Raw: no line editing, no echo, no signals from keys (Ctrl-C is read
        // as a key and quits cleanly), no output post-processing, 8-bit bytes.
        settings.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        settings.c_oflag &= ~tcflag_t(OPOST)
        settings.c_cflag |= tcflag_t(CS8)
        settings.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        tcsetattr(input, TCSAFLUSH, &settings)
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")
    }

    /// The cursor, the main screen and the original settings back; and, should a frame have been
    /// cut short, the whole screen as the scrolling region and no synchronized update left open.
    package func restore() {
        guard var settings = original else { return }
        write("\u{1B}[?2026l\u{1B}[r\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        tcsetattr(input, TCSAFLUSH, &settings)
        original = nil
    }

    /// Columns and rows now (80 × 24 if the terminal does not say).
    package var size: (columns: Int, rows: Int) {
        var window = winsize()
        guard ioctl(output, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 else { return (80, 24) }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    /// One cell's size in pixels from the window size (`TIOCGWINSZ`'s pixel fields), when the terminal fills them in.
    package var cellPixelSize: CellPixelSize? {
        var window = winsize()
        guard ioctl(output, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0,
              window.ws_xpixel > 0, window.ws_ypixel > 0 else { return nil }
        let cell = CellPixelSize(width: Int(window.ws_xpixel) / Int(window.ws_col),
                                 height: Int(window.ws_ypixel) / Int(window.ws_row))
        return cell.width > 0 && cell.height > 0 ? cell : nil
    }

    /// Asks the terminal what it can draw (``GraphicsDetection``), waiting at most
    /// `timeout` for its answers; in raw mode, so call it after ``enter()``. The cell
    /// size falls back to the window's pixel fields (which tmux fills in from the terminal around it).
    /// - Parameter route: how the queries reach the terminal: through tmux's passthrough, its
    ///   answers are the outer terminal's, not tmux's own.
    /// - Returns: what it said, and the bytes that were keys typed meanwhile.
    package func detectGraphics(timeout: Duration, route: GraphicsRoute = .direct)
        -> (capabilities: TerminalCapabilities, keys: [UInt8]) {
        write(bytes: route.unplaced(GraphicsDetection.queries))
        var (capabilities, keys) = GraphicsDetection.detect(timeout: timeout) { [input] remaining in
            var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(max(1, remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000))
            guard poll(&descriptor, 1, milliseconds) > 0 else { return [] }
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = read(input, &buffer, buffer.count)
            return count > 0 ? Array(buffer[..<count]) : []
        }
        if capabilities.cellSize == nil { capabilities.cellSize = cellPixelSize }
        return (capabilities, keys)
    }

    /// Writes one frame, text and images, with one `write(2)`, between the marks of
    /// synchronized output (`CSI ? 2026 h` … `CSI ? 2026 l`): a terminal that knows them
    /// shows the frame whole, never half drawn; others ignore them (xterm, tested). A frame
    /// that changes nothing writes nothing.
    package func writeFrame(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        write(bytes: Self.beginFrame + bytes + Self.endFrame)
    }

    static let beginFrame = Array("\u{1B}[?2026h".utf8)
    static let endFrame = Array("\u{1B}[?2026l".utf8)

    /// Writes `text` whole.
    package func write(_ text: String) {
        write(bytes: Array(text.utf8))
    }

    /// Writes `bytes` whole.
    package func write(bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { systemWrite(output, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}

/// `write(2)`, named apart from ``TerminalSession/write(_:)``.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
