import CommandLineSupport
import ThumbnailKit
import ThumbnailTerminal
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a ``BrowserScreen`` in the terminal: keys from a reading thread,
/// resizes and termination from signals, state changes from the feed and the
/// rows, a clock for the spinners, all handled in order on the main actor.
/// The screen opens at once; the feed loads inside it.
///
/// Every change asks for a frame, and a ``FrameCap`` draws one at most every
/// 30 ms (a held key scrolls without waiting for the screen, and the last
/// change is always drawn). Only the cells that changed are written.
@MainActor struct BrowserLoop {
    let session: TerminalSession
    let feed: any Loadable<[ListBrowser.Item]>
    let feedName: String
    let pipeline: ThumbnailPipeline
    let rowHeight: Int

    private enum Event: Sendable {
        case input([UInt8])
        case resize
        case quit
        case tick
        /// Something on screen changed state.
        case changed
        /// A frame held back by the frame cap is due.
        case frameDue
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
        var heldFrame: Task<Void, Never>?
        defer {
            signals.stop()
            clock.cancel()
            heldFrame?.cancel()
        }

        let size = session.size
        let screen = BrowserScreen(feed: feed, feedName: feedName, pipeline: pipeline, columns: size.columns,
                                   rows: size.rows, rowHeight: rowHeight,
                                   colorMode: .detect(environment: ProcessEnvironment.variables())) { sink.yield(.changed) }
        var decoder = KeyDecoder()
        var shown: ScreenBuffer?
        var cap = FrameCap(interval: .milliseconds(30))
        func draw() {
            let frame = screen.frame(residentBytes: ProcessMemory.residentBytes)
            session.write(frame.render(changesFrom: shown, mode: screen.colorMode))
            shown = frame
            cap.drawn(at: .now)
        }
        func requestFrame() {
            switch cap.request(at: .now) {
            case .drawNow:
                draw()
            case let .drawAt(due):
                heldFrame = Task {
                    try? await Task.sleep(until: due)
                    sink.yield(.frameDue)
                }
            case .alreadyScheduled:
                break
            }
        }

        draw()
        screen.loadFeed()
        loop: for await event in events {
            switch event {
            case let .input(bytes):
                for key in decoder.decode(bytes) where !screen.handle(key) { break loop }
                requestFrame()
            case .resize:
                let size = session.size
                screen.resize(columns: size.columns, rows: size.rows)
                shown = nil
                draw()
            case .quit:
                break loop
            case .tick:
                for key in decoder.flushPendingEscape() where !screen.handle(key) { break loop }
                screen.tick()
                requestFrame()
            case .changed:
                requestFrame()
            case .frameDue:
                draw()
            }
        }
    }
}
