#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a thumbnail file so that it appears whole or not at all: the bytes
/// go to a hidden temporary file in the same directory, which is renamed over
/// the target only once it is complete. A failed or killed write leaves at
/// most the temporary file, never a partial thumbnail under the real name.
///
/// No fsync: these are regenerable outputs, and syncing each one would cost
/// more than the decode. (The disk cache, whose entries are trusted later,
/// checksums its entries instead.)
enum OutputFile {
    /// Why writing failed, with the path and the system's reason.
    struct WriteError: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String { "cannot write \(path): \(reason)" }
    }

    static func save(_ bytes: [UInt8], to path: String) throws {
        let temporary = temporaryPath(for: path)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw WriteError(path: path, reason: lastError()) }
        var failure: String?
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = lastError()
                    return
                }
                offset += written
            }
        }
        if close(descriptor) != 0, failure == nil { failure = lastError() }
        if failure == nil, rename(temporary, path) != 0 { failure = lastError() }
        if let failure {
            unlink(temporary)
            throw WriteError(path: path, reason: failure)
        }
    }

    /// Creates `path` and any missing parents (like `mkdir -p`).
    static func createDirectory(_ path: String) throws {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component + "/"
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw WriteError(path: path, reason: lastError())
            }
        }
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
            throw WriteError(path: path, reason: "not a directory")
        }
    }

    /// `dir/.name.tmp-PID-N`: hidden, unique per process and call, same file system as the target.
    private static func temporaryPath(for path: String) -> String {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        return "\(directory).\(name).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    private static func lastError() -> String {
        String(cString: strerror(errno))
    }
}
