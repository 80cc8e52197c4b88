#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the numbers were measured on, for the top of the report.
enum Machine {
    /// CPUs this process may run on, as `nproc` counts them: the bits of its
    /// affinity mask (which a container or `taskset` can make smaller than the
    /// machine), from /proc/self/status; the online CPUs where there is no /proc.
    static var processors: Int {
        let lines = readTextFile("/proc/self/status")?.split(separator: "\n") ?? []
        if let mask = lines.first(where: { $0.hasPrefix("Cpus_allowed:") })?.dropFirst("Cpus_allowed:".count) {
            // Hex digits in comma-separated groups; the commas and the tab have no hex value.
            let count = mask.compactMap(\.hexDigitValue).reduce(0) { $0 + $1.nonzeroBitCount }
            if count > 0 { return count }
        }
        return sysconf(Int32(_SC_NPROCESSORS_ONLN))
    }

    /// The first "model name" of /proc/cpuinfo.
    static var cpuModel: String {
        let lines = readTextFile("/proc/cpuinfo")?.split(separator: "\n") ?? []
        guard let line = lines.first(where: { $0.hasPrefix("model name") }),
              let colon = line.firstIndex(of: ":")
        else { return "unknown CPU" }
        return String(line[line.index(after: colon)...].drop(while: { $0 == " " }))
    }

    /// `uname -srm`: system, kernel release, hardware.
    static var kernel: String {
        var names = utsname()
        guard uname(&names) == 0 else { return "unknown kernel" }
        return [string(names.sysname), string(names.release), string(names.machine)].joined(separator: " ")
    }

    /// The 1, 5 and 15 minute load averages: how busy the machine was besides us.
    static var loadAverage: String {
        var loads = [Double](repeating: 0, count: 3)
        guard getloadavg(&loads, 3) == 3 else { return "unknown" }
        return loads.map { decimal($0, places: 2) }.joined(separator: " ")
    }

    /// The configuration this binary was compiled in; only release numbers mean anything.
    static var buildConfiguration: String {
        #if DEBUG
        "debug (unoptimised: these numbers are not meaningful, build with -c release)"
        #else
        "release"
        #endif
    }

    /// The type of the file system holding `path` (e.g. ext4, tmpfs), from the
    /// longest mount point in /proc/self/mounts that contains it.
    static func fileSystemType(of path: String) -> String {
        guard let resolved = realpath(path, nil) else { return "unknown" }
        defer { free(resolved) }
        let target = String(cString: resolved)
        var best: (mountPoint: Substring, type: Substring)?
        for line in readTextFile("/proc/self/mounts")?.split(separator: "\n") ?? [] {
            let fields = line.split(separator: " ")
            guard fields.count >= 3 else { continue }
            let mountPoint = fields[1]
            let contains = mountPoint == "/" || target == mountPoint || target.hasPrefix(mountPoint + "/")
            if contains, mountPoint.count >= best?.mountPoint.count ?? 0 { best = (mountPoint, fields[2]) }
        }
        return best.map { String($0.type) } ?? "unknown"
    }

    /// A fixed-size C character array from `utsname` as a String.
    private static func string<Tuple>(_ tuple: Tuple) -> String {
        withUnsafeBytes(of: tuple) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
    }
}

/// The whole of a text file, read to its end rather than to its reported size,
/// which is 0 for the files in /proc.
func readTextFile(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var contents: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 << 10)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count >= 0 else { return nil }
        if count == 0 { return String(decoding: contents, as: UTF8.self) }
        contents += chunk[..<count]
    }
}
