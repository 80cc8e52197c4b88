#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The tmux pane a program runs in, as tmux itself says: where it is on the
/// terminal around it, and whether it lets graphics through.
package struct TmuxPane: Sendable, Hashable {
    /// The pane's top left cell on the outer terminal (its place in the window, below a status line on top).
    package var origin: GraphicsRoute.PaneOrigin
    /// Its `allow-passthrough` option is on (or `all`; tmux before 3.3 has
    /// no such option and always passes through).
    package var allowsPassthrough: Bool

    package init(origin: GraphicsRoute.PaneOrigin, allowsPassthrough: Bool) {
        self.origin = origin
        self.allowsPassthrough = allowsPassthrough
    }

    /// The format `tmux display` expands for a pane: where it is in its window, whether it
    /// passes graphics on (1, 0, or empty before 3.3), and the status line (`on`, `off` or a
    /// number of lines; `top` or `bottom`), which pushes the window down when it is on top.
    static let format = "#{pane_top} #{pane_left} #{allow-passthrough} #{status} #{status-position}"

    /// Reads `tmux display`'s expansion of ``format``.
    /// - Returns: `nil` when it is not five fields, the first two numbers.
    static func parse(_ output: String) -> TmuxPane? {
        let line = output.split(separator: "\n").first ?? ""
        let fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 5, let top = Int(fields[0]), let left = Int(fields[1]) else { return nil }
        let statusLines = switch fields[3] {
        case "on": 1
        case "off": 0
        default: Int(fields[3]) ?? 0
        }
        return TmuxPane(origin: .init(row: top + (fields[4] == "top" ? statusLines : 0), column: left),
                        allowsPassthrough: fields[2] != "0" && fields[2] != "off")
    }

    /// The pane this process runs in, when `TMUX` and `TMUX_PANE` say there is one,
    /// asked of tmux (`tmux display -p -t $TMUX_PANE`, which finds its server through `TMUX`).
    /// - Returns: `nil` outside tmux, or when tmux did not answer as expected.
    package static func current(environment: [String: String]) -> TmuxPane? {
        guard environment["TMUX"] != nil, let pane = environment["TMUX_PANE"],
              let output = standardOutput(of: ["tmux", "display", "-p", "-t", pane, format]) else { return nil }
        return parse(output)
    }

    /// What `arguments` (a program on `PATH` and its arguments) writes to standard
    /// output, when it exits with 0; its first 4 KiB. Its standard error goes nowhere.
    private static func standardOutput(of arguments: [String]) -> String? {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { return nil }
        defer { close(pipeEnds[0]) }
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], STDOUT_FILENO)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        var argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child = pid_t()
        let spawned = posix_spawnp(&child, arguments[0], &actions, nil, &argv, environ)
        close(pipeEnds[1])
        guard spawned == 0 else { return nil }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {  // to the end, so that the child never waits on a full pipe
            let count = read(pipeEnds[0], &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            output += buffer[..<min(count, max(0, 4096 - output.count))]
        }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED and WEXITSTATUS, which Swift does not import: the low 7 bits 0, then the code.
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else { return nil }
        return String(decoding: output, as: UTF8.self)
    }
}
