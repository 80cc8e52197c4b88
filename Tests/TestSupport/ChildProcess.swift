import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the built `thumbnailer` binary as a real child process and reports
/// its exit status, output and peak memory.
public struct ChildProcess: Sendable {
    public struct Outcome: Sendable {
        public let status: Int32
        public let standardOutput: String
        public let standardError: String
        /// The child's peak resident set size: its `VmHWM` in `/proc`, read
        /// every 10 ms while it runs (0 where there is no `/proc`). Not
        /// `wait4`'s `ru_maxrss`: `posix_spawn` runs the child in this
        /// process's memory until `exec`, which keeps that peak, so
        /// `ru_maxrss` would report the test process's own. A peak reached in
        /// the child's last 10 ms can be missed; `warm --json` reports its own.
        public let peakResidentBytes: Int
        /// Why the child was killed for passing its ``Limits``; `nil` when it exited by itself.
        public let limitExceeded: String?

        /// How the child ended, for a failed expectation's message: its status,
        /// why it was killed if it was, and the end of its standard error.
        public var summary: String {
            let killed = limitExceeded.map { " (\($0))" } ?? ""
            return "exit \(status)\(killed): \(standardError.suffix(2000))"
        }

        /// Standard output read as one JSON object (a `--json` summary); empty when it is not one.
        public var jsonObject: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(standardOutput.utf8))) as? [String: Any] ?? [:]
        }
    }

    /// What a child may use before it is killed, so that a broken build fails
    /// its test in seconds instead of running for minutes or exhausting the
    /// machine's memory. These are guards, not assertions: a test asserts its
    /// own, much tighter, bounds.
    public struct Limits: Sendable {
        /// The longest the child may run.
        public var duration: Duration
        /// The most memory it may have resident (read from `/proc`, so Linux only).
        public var residentBytes: Int

        public init(duration: Duration = .seconds(120), residentBytes: Int = 1 << 30) {
            self.duration = duration
            self.residentBytes = residentBytes
        }
    }

    /// A `kB` field of `/proc/<pid>/status` (`VmRSS:`, `VmHWM:`), in bytes, of any process (one a test
    /// started in a terminal, say); `nil` where there is no `/proc` or no such process.
    public static func statusField(_ name: String, ofProcess pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) }),
              let kibibytes = Int(line.dropFirst(name.count).trimmingCharacters(in: .whitespaces).split(separator: " ")[0])
        else { return nil }
        return kibibytes << 10
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

        /// Sends SIGKILL to the child's whole process group, then reaps the child: for a child
        /// started with `newProcessGroup` whose own children (a browser a driver started) must
        /// not outlive it. Only the group the child leads is signalled, never this process's.
        public func killProcessGroup() -> Outcome {
            if getpgid(pid) == pid { sendSignal(SIGKILL, to: -pid) }
            return kill()
        }

        /// Sends `signal` (SIGINT is what Ctrl-C sends); the child decides what
        /// to do. With `awaitingDelivery`, returns only once the child has taken
        /// it (it is no longer pending: its handler has been entered), so that
        /// the same signal sent next is a second one, not merged into this one.
        /// Gives up waiting after 10 s (a stopped child takes nothing).
        public func signal(_ signal: Int32, awaitingDelivery: Bool = false) {
            sendSignal(signal, to: pid)
            guard awaitingDelivery else { return }
            let deadline = ContinuousClock.now + .seconds(10)
            while isPending(signal), ContinuousClock.now < deadline {
                var pause = timespec(tv_sec: 0, tv_nsec: 100_000)
                nanosleep(&pause, nil)
            }
        }

        /// Whether `signal` waits to be delivered to the child: the mask of
        /// `ShdPnd:` in `/proc/<pid>/status`. False once the child has exited
        /// (a zombie keeps the signal that killed it there), or where there is no `/proc`.
        private func isPending(_ signal: Int32) -> Bool {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
            let lines = status.split(separator: "\n")
            guard lines.first(where: { $0.hasPrefix("State:") })?.contains("Z (zombie)") == false,
                  let line = lines.first(where: { $0.hasPrefix("ShdPnd:") }),
                  let mask = UInt64(line.dropFirst("ShdPnd:".count).trimmingCharacters(in: .whitespaces), radix: 16)
            else { return false }
            return mask & (1 << UInt64(signal - 1)) != 0
        }

        /// Waits for the child to exit and collects its output.
        public func wait() -> Outcome {
            wait(within: Limits(duration: .seconds(24 * 3600), residentBytes: .max))
        }

        /// Waits for the child to exit, killing it (SIGKILL) as soon as it
        /// passes `limits`; ``Outcome/limitExceeded`` then says which.
        public func wait(within limits: Limits) -> Outcome {
            let deadline = ContinuousClock.now + limits.duration
            var status: Int32 = 0
            var peak = 0
            while true {
                peak = max(peak, statusField("VmHWM:") ?? 0)
                let reaped = waitpid(pid, &status, WNOHANG)
                if reaped == pid { return outcome(status: status, peak: peak, limitExceeded: nil) }
                if reaped < 0 && errno != EINTR { return outcome(status: status, peak: peak, limitExceeded: nil) }
                var exceeded: String?
                if let resident = statusField("VmRSS:"), resident > limits.residentBytes {
                    exceeded = "killed with \(resident >> 20) MiB resident, past the limit of \(limits.residentBytes >> 20) MiB"
                } else if ContinuousClock.now >= deadline {
                    exceeded = "killed still running after \(limits.duration)"
                }
                if let exceeded {
                    sendSignal(SIGKILL, to: pid)
                    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                    return outcome(status: status, peak: peak, limitExceeded: exceeded)
                }
                var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
                nanosleep(&pause, nil)
            }
        }

        /// A `kB` field of the child's `/proc/<pid>/status`, in bytes.
        private func statusField(_ name: String) -> Int? {
            ChildProcess.statusField(name, ofProcess: pid)
        }

        /// The outcome of the reaped child; removes its output files.
        private func outcome(status: Int32, peak: Int, limitExceeded: String?) -> Outcome {
            defer { try? FileManager.default.removeItem(at: directory) }
            let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            func read(_ name: String) -> String {
                (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? ""
            }
            return Outcome(status: exitStatus, standardOutput: read("stdout"), standardError: read("stderr"),
                           peakResidentBytes: peak, limitExceeded: limitExceeded)
        }

        /// What the child has printed so far.
        public var standardOutputSoFar: String {
            (try? String(contentsOf: directory.appendingPathComponent("stdout"), encoding: .utf8)) ?? ""
        }

        /// What the child has written to standard error so far.
        public var standardErrorSoFar: String {
            (try? String(contentsOf: directory.appendingPathComponent("stderr"), encoding: .utf8)) ?? ""
        }
    }

    /// Runs `executable` with `arguments` to completion, or until it passes `limits`.
    public static func run(_ arguments: [String], executable: String = thumbnailer,
                           environment: [String: String] = [:], limits: Limits? = nil) throws -> Outcome {
        let child = try start(arguments, executable: executable, environment: environment)
        return if let limits { child.wait(within: limits) } else { child.wait() }
    }

    /// Starts `executable` with `arguments` and this process's environment plus
    /// `environment`; stdout and stderr go to temporary files. With `newProcessGroup`, the
    /// child leads a process group of its own, which ``Running/killProcessGroup()`` ends whole.
    public static func start(_ arguments: [String], executable: String = thumbnailer,
                             environment: [String: String] = [:], newProcessGroup: Bool = false) throws -> Running {
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
        // The child starts as from a shell: no signal blocked (this thread may block some,
        // and a blocked SIGXFSZ would hide that a file size limit kills the child), SIGXFSZ at its default.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var fileSizeSignal = sigset_t()
        sigemptyset(&fileSizeSignal)
        sigaddset(&fileSizeSignal, SIGXFSZ)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &fileSizeSignal)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if newProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
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
