#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A new, private directory under `$TMPDIR` (or /tmp), made with `mkdtemp`,
/// that the benchmark's caches live in until ``remove()``.
struct TemporaryDirectory {
    let path: String

    init() throws {
        let parent = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(parent)/cache-benchmark.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!).map { String(cString: $0) } }
        guard let made else { throw posixError("cannot create a directory in", parent) }
        path = made
    }

    /// Removes the directory and everything in it.
    func remove() throws {
        try removeTree(path)
    }
}

/// Removes `path` and everything under it, never following a symbolic link
/// out of the tree. A path that does not exist is already removed.
func removeTree(_ path: String) throws {
    var status = stat()
    guard lstat(path, &status) == 0 else {
        if errno == ENOENT { return }
        throw posixError("cannot stat", path)
    }
    guard status.st_mode & S_IFMT == S_IFDIR else {
        guard unlink(path) == 0 else { throw posixError("cannot remove", path) }
        return
    }
    for name in try directoryEntries(path) { try removeTree("\(path)/\(name)") }
    guard rmdir(path) == 0 else { throw posixError("cannot remove directory", path) }
}

/// The names in directory `path`, without `.` and `..`.
private func directoryEntries(_ path: String) throws -> [String] {
    guard let directory = opendir(path) else { throw posixError("cannot open directory", path) }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) {
            String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        if name != ".", name != ".." { names.append(name) }
    }
    return names
}

/// `errno`, described, as the error of `operation` on `path`.
func posixError(_ operation: String, _ path: String) -> BenchmarkError {
    BenchmarkError(description: "\(operation) \(path): \(String(cString: strerror(errno)))")
}
