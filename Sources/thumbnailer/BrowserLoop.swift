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
/// change is always drawn). Only the cells that changed are written, after
/// the terminal has scrolled the list's lines itself when the list moved.
@MainActor struct BrowserLoop {
    let session: TerminalSession
    let feed: any Loadable<any BrowserItems>
    let feedName: String
    let pipeline: ThumbnailPipeline
    let rowHeight: Int
    /// How thumbnails are drawn, as asked (`--graphics`).
    let requestedGraphics: GraphicsProtocol

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
    /// - Returns: a note for after the screen has closed (why the graphics asked for were not used), if any.
    func run() async -> String? {
        session.enter()
        defer { session.restore() }
        // Before the key reader starts: the terminal's answers arrive on the same input.
        let (graphics, route, typedMeanwhile, note) = detectGraphics()
        let size = session.size
        let renderer = graphics.makeRenderer(retained: max(8, 3 * size.rows / rowHeight), route: route)
        defer { if let renderer { session.write(bytes: renderer.finish()) } }
        let (events, sink) = AsyncStream.makeStream(of: Event.self)
        if !typedMeanwhile.isEmpty { sink.yield(.input(typedMeanwhile)) }
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

        let screen = BrowserScreen(feed: feed, feedName: feedName, pipeline: pipeline, columns: size.columns,
                                   rows: size.rows, rowHeight: rowHeight,
                                   colorMode: .detect(environment: ProcessEnvironment.variables()),
                                   graphics: graphics) { sink.yield(.changed) }
        // The cell size the window reports; when a resize changes it (the font changed), thumbnails
        // are made again at the new size.
        var windowCell = session.cellPixelSize
        var decoder = KeyDecoder()
        var shown: ScreenBuffer?
        var cap = FrameCap(interval: .milliseconds(30))
        func draw() {
            // The cap counts from when a frame begins: one that takes 15 ms to make (sixels to
            // encode) must not push the next one to 45.
            let began = ContinuousClock.now
            let frame = screen.frame(residentBytes: ProcessMemory.residentBytes)
            var bytes: [UInt8] = []
            // A list that scrolled is moved by the terminal, images and all, and only what came
            // into view is drawn. Not through tmux: it would move its own cells, not the images.
            if let previous = shown, let scrolling = frame.scrollingLines,
               let distance = scrolling.distance(from: previous.scrollingLines), renderer?.route ?? .direct == .direct {
                bytes += Array(scrolling.scrollSequence(distance: distance).utf8)
                bytes += renderer?.scroll(by: distance, lines: scrolling.lines) ?? []
                shown = previous.scrolled(by: distance)
            }
            bytes += Array(frame.render(changesFrom: shown, mode: screen.colorMode).utf8)
            bytes += renderer?.render(frame.images, redrawn: shown == nil) ?? []
            session.writeFrame(bytes)
            shown = frame
            cap.drawn(at: began)
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
                for key in decoder.decode(bytes, at: .now) where !screen.handle(key) { break loop }
                requestFrame()
            case .resize:
                if case .tmuxPassthrough = renderer?.route, let pane = TmuxPane.current(environment: ProcessEnvironment.variables()) {
                    renderer?.route = .tmuxPassthrough(origin: pane.origin)  // a split moves the pane
                }
                let size = session.size
                screen.resize(columns: size.columns, rows: size.rows)
                if let cell = session.cellPixelSize, cell != windowCell {
                    windowCell = cell
                    screen.change(graphics: screen.graphics.at(cell: cell))
                }
                shown = nil
                draw()
            case .quit:
                break loop
            case .tick:
                // Only an escape whose rest has not come for a while: a tick can fall between two reads of one sequence.
                for key in decoder.flushPendingEscape(at: .now) where !screen.handle(key) { break loop }
                screen.tick()
                requestFrame()
            case .changed:
                requestFrame()
            case .frameDue:
                draw()
            }
        }
        return note
    }

    /// The graphics `--graphics` asks for, at the terminal's cell size, and how their
    /// sequences reach the terminal. `auto` asks the terminal (300 ms at most). Inside
    /// tmux, whose own answers say nothing of the terminal around it, the queries and
    /// the images go through its passthrough when the pane allows it, else thumbnails
    /// are half blocks (with a note when a protocol was asked for by name).
    private func detectGraphics() -> (TerminalGraphics, GraphicsRoute, keys: [UInt8], note: String?) {
        guard requestedGraphics != .blocks else { return (.halfBlocks, .direct, [], nil) }
        let environment = ProcessEnvironment.variables()
        var route = GraphicsRoute.direct
        if environment["TMUX"] != nil {
            guard let pane = TmuxPane.current(environment: environment), pane.allowsPassthrough else {
                let note = requestedGraphics == .auto ? nil : """
                    browse: tmux does not pass graphics on in this pane, so thumbnails were drawn in half \
                    blocks; `tmux set -g allow-passthrough on` lets them through
                    """
                return (.halfBlocks, .direct, [], note)
            }
            route = .tmuxPassthrough(origin: pane.origin)
        }
        let (capabilities, keys) = session.detectGraphics(timeout: .milliseconds(300), route: route)
        return (capabilities.graphics(for: requestedGraphics), route, keys, nil)
    }
}
