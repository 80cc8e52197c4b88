import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the built `thumbnailer` binary as a real child process and reports
/// its exit status and output.
public struct ChildProcess: Sendable {
    public struct Outcome: Sendable {
        public let status: Int32
        public let standardOutput: String
        public let standardError: String
    }

    /// The `thumbnailer` executable next to the test bundle.
    public static let thumbnailer: String = {
        #if os(Linux)
        let products = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        #else
        let products = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }!.bundleURL.deletingLastPathComponent()
        #endif
        return products.appendingPathComponent("thumbnailer").path
    }()

    /// A sibling executable of the test bundle (another product of this package).
    public static func product(_ name: String) -> String {
        URL(fileURLWithPath: thumbnailer).deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// A child that is still running; ``wait()`` or ``kill()`` it.
    public struct Running: Sendable {
        public let pid: pid_t
        let directory: URL

        /// Sends SIGKILL and reaps the child.
        public func kill() -> Outcome {
            sendSignal(SIGKILL, to: pid)
            return wait()
        }

        /// Sends SIGINT, as Ctrl-C would; the child decides what to do.
        public func interrupt() {
            sendSignal(SIGINT, to: pid)
        }

        /// Waits for the child to exit and collects its output.
        public func wait() -> Outcome {
            defer { try? FileManager.default.removeItem(at: directory) }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            func read(_ name: String) -> String {
                (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? ""
            }
            return Outcome(status: exitStatus, standardOutput: read("stdout"), standardError: read("stderr"))
        }

        /// What the child has printed so far.
        public var standardOutputSoFar: String {
            (try? String(contentsOf: directory.appendingPathComponent("stdout"), encoding: .utf8)) ?? ""
        }
    }

    /// Runs `executable` with `arguments` to completion.
    public static func run(_ arguments: [String], executable: String = thumbnailer,
                           environment: [String: String] = [:]) throws -> Outcome {
        try start(arguments, executable: executable, environment: environment).wait()
    }

    /// Starts `executable` with `arguments` and this process's environment plus
    /// `environment`; stdout and stderr go to temporary files.
    public static func start(_ arguments: [String], executable: String = thumbnailer,
                             environment: [String: String] = [:]) throws -> Running {
        let directory = try Fixtures.temporaryDirectory()
        let outPath = directory.appendingPathComponent("stdout").path
        let errPath = directory.appendingPathComponent("stderr").path

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { _, new in new }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else {
            try? FileManager.default.removeItem(at: directory)
            throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO)
        }
        return Running(pid: pid, directory: directory)
    }
}

/// `kill(2)`, outside `Running` whose own `kill()` would shadow it.
private func sendSignal(_ signal: Int32, to pid: pid_t) {
    _ = kill(pid, signal)
}
