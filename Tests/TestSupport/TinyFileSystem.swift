import Foundation

/// A small tmpfs, made without root, that lives as long as one shell script:
/// the script runs in a user and mount namespace of its own (`unshare -r -m`)
/// with the tmpfs mounted at `$MNT`, so a test can fill a disk without
/// touching the machine's. The mount and everything on it vanish when the
/// script ends; what a test wants to keep, the script writes elsewhere.
public enum TinyFileSystem {
    /// The page size tmpfs allocates in.
    public static let pageSize = 4096

    /// Whether this machine lets an unprivileged process make a user and mount
    /// namespace and mount a tmpfs in it (some kernels and containers forbid it).
    public static let isAvailable: Bool = (try? run("true", kibibytes: 64).status) == 0

    /// Runs `script` with `sh`, a tmpfs of `kibibytes` mounted at `$MNT`, and
    /// `environment` added to this process's. Exits 97 when the mount fails.
    public static func run(_ script: String, kibibytes: Int, environment: [String: String] = [:],
                           limits: ChildProcess.Limits = ChildProcess.Limits()) throws -> ChildProcess.Outcome {
        let mountPoint = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: mountPoint) }
        let mounted = "mount -t tmpfs -o size=\(kibibytes)k tmpfs \"$MNT\" || exit 97\n" + script
        var variables = environment
        variables["MNT"] = mountPoint.path
        return try ChildProcess.run(["-r", "-m", "sh", "-c", mounted], executable: "/usr/bin/unshare",
                                    environment: variables, limits: limits)
    }
}
