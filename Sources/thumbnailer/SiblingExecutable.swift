import ArgumentParser
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `thumbnailer warm …` and `thumbnailer browse …` run in `thumbnailer-feed`,
/// the executable installed beside this one: feeds need Foundation's
/// networking (URLSession), which costs every process that links it about 6 ms of
/// CPU and 13 MiB at start-up (release builds, `--help`: 9.2 ms and 13.9 MiB
/// here against 15.1 ms and 27.4 MiB there), and `thumb` and `cache` should
/// not pay for them. The process is replaced, not wrapped, so signals, the
/// terminal, output and the exit status are the sibling's own.
enum SiblingExecutable {
    static let name = "thumbnailer-feed"

    /// Replaces this process with the sibling running `subcommand arguments…`.
    static func replaceProcess(running subcommand: String, with arguments: [String]) throws -> Never {
        guard let directory = executableDirectory() else {
            throw ValidationError("cannot find this executable's directory to run \(name)")
        }
        let path = "\(directory)/\(name)"
        var argv = (["thumbnailer", subcommand] + arguments).map { strdup($0) } + [nil]
        execv(path, &argv)
        let reason = String(cString: strerror(errno))
        throw ValidationError("cannot run \(path): \(reason); it is built with thumbnailer (swift build --product \(name))")
    }

    private static func executableDirectory() -> String? {
        #if canImport(Darwin)
        var size = UInt32(PATH_MAX)
        var buffer = [CChar](repeating: 0, count: Int(size))
        guard _NSGetExecutablePath(&buffer, &size) == 0 else { return nil }
        let path = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #else
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #endif
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }
}

/// `thumbnailer warm`, run by the sibling.
struct WarmCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "warm",
        abstract: "Prebuild the caches from a feed (JSON Feed, RSS, Atom, plain JSON).",
        discussion: "See `thumbnailer warm --help` for the options.")

    @Argument(parsing: .captureForPassthrough, help: "The feed and the options of warm.")
    var arguments: [String] = []

    func run() throws {
        try SiblingExecutable.replaceProcess(running: "warm", with: arguments)
    }
}

/// `thumbnailer browse`, run by the sibling.
struct BrowseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browse",
        abstract: "Browse a feed's images in the terminal.",
        discussion: "See `thumbnailer browse --help` for the options and keys.")

    @Argument(parsing: .captureForPassthrough, help: "The feed and the options of browse.")
    var arguments: [String] = []

    func run() throws {
        try SiblingExecutable.replaceProcess(running: "browse", with: arguments)
    }
}
