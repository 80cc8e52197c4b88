import Foundation
import TestSupport
import Testing

/// The demo's second `warm` (TestImages/feed.json at 256 and 128 px into the
/// cache its first run made) under `strace -f -e trace=%file`: each stored
/// entry is looked at once, by the scan that builds the disk cache's index
/// when it opens; asking whether an image is cached looks at no file.
@Suite(.enabled(if: Strace.path != nil, "needs strace")) struct WarmFileAccessTests {
    @Test func theDemosSecondWarmLooksAtEachStoredEntryOnce() async throws {
        let temporary = try TemporaryDirectory()
        let cache = temporary.path("cache")
        let warm = ["warm", Fixtures.testImage("feed.json"), "--cache-dir", cache, "-s", "256", "-s", "128", "--json"]
        let first = try await ChildProcess.run(warm)
        #expect(first.status == 0, "\(first.summary)")
        let images = try #require(first.jsonObject["images"] as? Int)

        let trace = temporary.path("trace")
        let second = try await ChildProcess.run(["-f", "-e", "trace=%file", "-o", trace, ChildProcess.thumbnailer] + warm,
                                                executable: try #require(Strace.path))
        #expect(second.status == 0, "\(second.summary)")
        #expect(second.jsonObject["alreadyCached"] as? Int == images && second.jsonObject["fetched"] as? Int == 0)

        let entries = try storedEntries(in: cache)
        #expect(entries.count == 3 * images, "an original and two thumbnails of each image")
        // Every call that names an entry file, by its name (the 64 hex digits of its key's digest).
        let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
            .compactMap { line in line.firstMatch(of: /"([0-9a-f]{64})"/).map { String($0.1) } }
        #expect(calls.count <= entries.count, "\(calls.count) calls naming one of \(entries.count) entries")
        #expect(Set(calls).count == calls.count, "an entry named twice")
        #expect(Set(calls).isSubset(of: entries))
    }

    /// The names of the entry files under the cache's namespace folders.
    func storedEntries(in cache: String) throws -> Set<String> {
        var names = Set<String>()
        for namespace in ["originals", "thumbnails"] {
            let folder = "\(cache)/\(namespace)"
            for shard in try FileManager.default.contentsOfDirectory(atPath: folder) {
                names.formUnion(try FileManager.default.contentsOfDirectory(atPath: "\(folder)/\(shard)"))
            }
        }
        return names
    }
}

/// Where strace is installed, if it is.
private enum Strace {
    static let path = ["/usr/bin/strace", "/bin/strace"].first { FileManager.default.isExecutableFile(atPath: $0) }
}
