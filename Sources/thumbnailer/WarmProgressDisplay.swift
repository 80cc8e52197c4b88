import CommandLineSupport
import Synchronization
import ThumbnailKit
import ThumbnailTerminal
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Shows a warm-up's progress on stderr: a bar redrawn in place on a
/// terminal (at most ten times a second), a plain line every two seconds
/// otherwise (logs, CI), or nothing.
final class WarmProgressDisplay: Sendable {
    enum Style: Sendable {
        case bar, lines, silent

        /// A bar when stderr is a terminal, else lines.
        static var forStandardError: Style { isatty(STDERR_FILENO) == 1 ? .bar : .lines }
    }

    private struct State {
        var latest: WarmProgress
        var lastShown: ContinuousClock.Instant?
        var lastShownProgress: WarmProgress?
    }

    private let style: Style
    private let started = ContinuousClock.now
    private let state: Mutex<State>

    init(style: Style, total: Int) {
        self.style = style
        state = Mutex(State(latest: WarmProgress(done: 0, total: total, bytesReceived: 0, failures: 0)))
    }

    /// Records `progress` and shows it if it is time to.
    func show(_ progress: WarmProgress) {
        guard style != .silent else { return }
        let interval: Duration = style == .bar ? .milliseconds(100) : .seconds(2)
        let line = state.withLock { state -> String? in
            state.latest = progress
            let now = ContinuousClock.now
            if let last = state.lastShown, now - last < interval, progress.done < progress.total { return nil }
            state.lastShown = now
            state.lastShownProgress = progress
            return render(progress, at: now)
        }
        if let line { write(line) }
    }

    /// Shows the final state, if it has not been shown, and ends the bar's line.
    func finish() {
        guard style != .silent else { return }
        let line = state.withLock { $0.lastShownProgress == $0.latest ? nil : render($0.latest, at: .now) }
        if let line { write(line) }
        if style == .bar { StandardError.print("\n") }
    }

    /// Writes `line`, escaped like every line on a terminal (``TerminalText``), in the style's way.
    private func write(_ line: String) {
        let escaped = TerminalText.escaped(line)
        switch style {
        case .bar: StandardError.print("\r\u{1B}[2K" + escaped)
        case .lines: StandardError.print(escaped + "\n")
        case .silent: break
        }
    }

    private func render(_ progress: WarmProgress, at now: ContinuousClock.Instant) -> String {
        let elapsed = (now - started).inSeconds
        let rate = elapsed > 0 ? Double(progress.bytesReceived) / elapsed : 0
        var parts = ["\(progress.done)/\(progress.total) images",
                     ByteCount(bytes: progress.bytesReceived).description,
                     "\(ByteCount(bytes: Int(rate)))/s"]
        if progress.done > 0, progress.done < progress.total {
            let remaining = elapsed / Double(progress.done) * Double(progress.total - progress.done)
            parts.append("ETA \(Self.clock(remaining))")
        }
        if progress.failures > 0 { parts.append("\(progress.failures) failed") }
        let text = parts.joined(separator: "  ")
        guard style == .bar else { return "warm: " + text }
        let width = 24
        let filled = progress.total == 0 ? width : width * progress.done / progress.total
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] " + text
    }

    /// `m:ss`.
    private static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        let remainder = whole % 60
        return "\(whole / 60):" + (remainder < 10 ? "0" : "") + "\(remainder)"
    }
}
