import ThumbnailKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `cache-torture full-disk ROOT`: ROOT is an empty tmpfs of 400 KiB. The
/// cache goes in ROOT/cache and a filler file beside it takes the room the
/// cache must not have. Each step prints one line, `<step>: <what happened>`,
/// errors included, for the test to check; the output is the same whatever
/// the cache does, so an older cache runs it too.
func runFullDisk(root: String) throws {
    let directory = "\(root)/cache"
    let filler = Filler(path: "\(root)/filler")
    let cache = try DiskCache(directory: directory)

    // A journal line that finds no room: small entries until the next line
    // crosses into a new page, then one page left, which the entry takes.
    var stored = 0
    var line = 0
    repeat {
        let before = journalSize(directory)
        try cache.store(payload(for: "j\(stored)", size: 100), forKey: "j\(stored)", in: .originals)
        stored += 1
        line = journalSize(directory) - before
    } while journalSize(directory) % 4096 + line <= 4096
    try filler.leave(pages: 1)
    step("journal without room") {
        try cache.store(payload(for: "last", size: 100), forKey: "last", in: .originals)
        return try cache.entry(forKey: "last", in: .originals) == nil ? "lost" : "stored"
    }
    step("reopened") { "\(try DiskCache(directory: directory).statistics().totalEntries) of \(stored + 1) entries" }

    // Eviction to make room, around an entry this process has open.
    filler.remove()
    try cache.removeAll()
    for key in ["a", "b", "c"] { try cache.store(payload(for: key, size: 40_000), forKey: key, in: .originals) }
    let open = try cache.openEntry(forKey: "a", in: .originals)
    _ = try cache.entry(forKey: "b", in: .originals)  // "a" is now the least recently used
    _ = try cache.entry(forKey: "c", in: .originals)
    try filler.leave(pages: 4)
    step("store on a full disk") {
        try cache.store(payload(for: "d", size: 40_000), forKey: "d", in: .originals)
        return "stored; " + present(cache, ["a", "b", "c", "d"])
    }
    step("stream on a full disk") {
        try storeStreamed(payload(for: "e", size: 40_000), forKey: "e", in: .originals, cache: cache)
        return "stored; " + present(cache, ["a", "c", "d", "e"])
    }
    withExtendedLifetime(open) {}
    step("larger than the disk") {
        try cache.store(payload(for: "f", size: 1 << 20), forKey: "f", in: .originals)
        return "stored"
    }
    step("temporary files") { "\(temporaryFiles(in: directory))" }

    // Not a free byte: every maintenance call still works.
    try filler.leave(pages: 0)
    step("maintenance on a full disk") {
        let full = try DiskCache(directory: directory)
        let entries = try full.statistics().totalEntries
        let checked = try full.verify(repair: true).checked
        try full.removeAll()
        return "\(entries) entries, \(checked) verified, \(try full.statistics().totalEntries) after clearing"
    }
}

/// Prints `name: <result>`, or `name: error <error>`.
private func step(_ name: String, _ body: () throws -> String) {
    do {
        print("\(name): \(try body())")
    } catch {
        print("\(name): error \(error)")
    }
}

private func present(_ cache: DiskCache, _ keys: [String]) -> String {
    keys.map { "\($0) \(cache.containsEntry(forKey: $0, in: .originals) ? "kept" : "gone")" }.joined(separator: ", ")
}

private func journalSize(_ directory: String) -> Int {
    var status = stat()
    return stat("\(directory)/journal", &status) == 0 ? Int(status.st_size) : 0
}

private func temporaryFiles(in directory: String) -> Int {
    var count = 0
    for namespace in DiskCache.Namespace.allCases {
        let root = "\(directory)/\(namespace.rawValue)"
        for folder in names(in: root) {
            count += names(in: "\(root)/\(folder)").filter { $0.hasPrefix(".tmp-") }.count
        }
    }
    return count
}

private func names(in path: String) -> [String] {
    guard let directory = opendir(path) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        names.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
    }
    return names.filter { $0 != "." && $0 != ".." }
}

/// A file that takes all of a file system's room but what is asked.
private struct Filler {
    let path: String

    /// Writes zeros until the file system is full, then gives back `pages` of 4 KiB.
    func leave(pages: Int) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { fail("cannot create \(path)") }
        defer { close(descriptor) }
        let zeros = [UInt8](repeating: 0, count: 1 << 16)
        while zeros.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        guard errno == ENOSPC else { fail("filling \(path) stopped with errno \(errno)") }
        guard pages > 0 else { return }
        var status = stat()
        fstat(descriptor, &status)
        guard ftruncate(descriptor, off_t((Int(status.st_size) / 4096 - pages) * 4096)) == 0 else { fail("cannot truncate") }
    }

    func remove() { unlink(path) }
}
