import CommandLineSupport
import ThumbnailKit
import ThumbnailTerminal
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a ``ListBrowser`` in the terminal: keys from a reading thread,
/// resizes and termination from signals, a clock for the spinners, all
/// handled in order on the main actor. Frames are drawn at most every 30 ms
/// (a held key scrolls without waiting for the screen) and only the cells
/// that changed are written.
@MainActor struct BrowserLoop {
    let session: TerminalSession
    let items: [ListBrowser.Item]
    let pipeline: ThumbnailPipeline
    let rowHeight: Int

    private enum Event: Sendable {
        case input([UInt8])
        case resize
        case quit
        case tick
    }

    /// Takes over the terminal until a quit key, a signal or the end of input, and gives it back.
    func run() async {
        session.enter()
        defer { session.restore() }
        let (events, sink) = AsyncStream.makeStream(of: Event.self)
        DetachedThread.start {
            var buffer = [UInt8](repeating: 0, count: 256)
            while true {
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else {
                    sink.yield(.quit)
                    return
                }
                sink.yield(.input(Array(buffer[..<count])))
            }
        }
        let signals = SignalWatcher([SIGWINCH, SIGTERM, SIGINT, SIGHUP]) { signalNumber in
            sink.yield(signalNumber == SIGWINCH ? .resize : .quit)
        }
        let clock = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(80))
                sink.yield(.tick)
            }
        }
        defer {
            signals.stop()
            clock.cancel()
        }

        let size = session.size
        let browser = ListBrowser(items: items, pipeline: pipeline, columns: size.columns, rows: size.rows,
                                  rowHeight: rowHeight, colorMode: .detect(environment: Self.environment()))
        var decoder = KeyDecoder()
        var shown: ScreenBuffer?
        var lastDrawn = ContinuousClock.now - .seconds(1)
        func draw(force: Bool) {
            let now = ContinuousClock.now
            guard force || now - lastDrawn >= .milliseconds(30) else { return }
            let frame = browser.frame(residentBytes: ProcessMemory.residentBytes)
            session.write(frame.render(changesFrom: shown, mode: browser.colorMode))
            shown = frame
            lastDrawn = now
        }

        draw(force: true)
        loop: for await event in events {
            switch event {
            case let .input(bytes):
                for key in decoder.decode(bytes) where !browser.handle(key) { break loop }
                draw(force: false)
            case .resize:
                let size = session.size
                browser.resize(columns: size.columns, rows: size.rows)
                shown = nil
                draw(force: true)
            case .quit:
                break loop
            case .tick:
                for key in decoder.flushPendingEscape() where !browser.handle(key) { break loop }
                browser.tick()
                draw(force: true)
            }
        }
    }

    /// The process's environment variables (`NAME=value` entries of `environ`).
    private static func environment() -> [String: String] {
        var variables: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return variables
    }
}
