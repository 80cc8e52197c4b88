import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// `thumbnailer cache stats|verify|clear` on a real cache directory.
@Suite struct CacheCommandTests {
    let temporary: TemporaryDirectory
    var directory: URL { temporary.url }

    init() throws {
        temporary = try TemporaryDirectory()
    }

    private func populate() throws -> DiskCache {
        let cache = try DiskCache(directory: directory.path)
        for n in 0..<3 { try cache.store([UInt8](repeating: UInt8(n), count: 5_000), forKey: "o\(n)", in: .originals) }
        try cache.store([UInt8](repeating: 9, count: 20_000), forKey: "t", in: .thumbnails)
        return cache
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func statsCountsEntriesAndBytesPerNamespace() throws {
        _ = try populate()
        let run = try ChildProcess.run(["cache", "stats", "--cache-dir", directory.path, "--json", "--disk-limit", "2M"])

        #expect(run.status == 0, "\(run.standardError)")
        let stats = try json(run.standardOutput)
        #expect(stats["originalsEntries"] as? Int == 3 && stats["thumbnailsEntries"] as? Int == 1)
        #expect(stats["originalsBytes"] as? Int == 3 * 8192 && stats["thumbnailsBytes"] as? Int == 20_480)
        #expect(stats["sizeLimit"] as? Int == 2 << 20)
    }

    @Test func verifyReportsDamageAndRepairRemovesIt() throws {
        _ = try populate()
        let files = (FileManager.default.enumerator(atPath: directory.path)?.allObjects as? [String] ?? [])
            .filter { $0.hasPrefix("originals/") && $0.split(separator: "/").last?.count == 64 }
        let victim = directory.appendingPathComponent(try #require(files.first))
        var contents = try Data(contentsOf: victim)
        contents[contents.count - 1] ^= 1
        try contents.write(to: victim)

        let check = try ChildProcess.run(["cache", "verify", "--cache-dir", directory.path])
        #expect(check.status == 1)
        #expect(check.standardOutput.contains("4 entries checked, 1 damaged"), "\(check.standardOutput)")
        #expect(FileManager.default.fileExists(atPath: victim.path), "verify alone removes nothing")

        let repair = try ChildProcess.run(["cache", "verify", "--repair", "--cache-dir", directory.path, "--json"])
        #expect(repair.status == 1)
        let report = try json(repair.standardOutput)
        #expect((report["damaged"] as? [String]) == [victim.path] && report["repaired"] as? Bool == true)
        #expect(!FileManager.default.fileExists(atPath: victim.path))

        let again = try ChildProcess.run(["cache", "verify", "--cache-dir", directory.path])
        #expect(again.status == 0 && again.standardOutput.contains("3 entries checked, 0 damaged"))
    }

    @Test func clearEmptiesTheCache() throws {
        let cache = try populate()
        let run = try ChildProcess.run(["cache", "clear", "--cache-dir", directory.path, "--json"])

        #expect(run.status == 0)
        #expect(try json(run.standardOutput)["removedEntries"] as? Int == 4)
        #expect(try cache.statistics().totalEntries == 0)
    }

    @Test func theDefaultDirectoryFollowsTheEnvironment() throws {
        let custom = directory.appendingPathComponent("from-env")
        let run = try ChildProcess.run(["cache", "stats"], environment: ["THUMBNAILER_CACHE_DIR": custom.path])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains(custom.path))

        let xdg = directory.appendingPathComponent("xdg")
        let viaXDG = try ChildProcess.run(["cache", "stats"], environment: ["XDG_CACHE_HOME": xdg.path])
        #expect(viaXDG.standardOutput.contains("\(xdg.path)/thumbnailer"))
    }

    @Test func anUnusableDirectoryIsAClearErrorNotACrash() throws {
        let file = directory.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        let run = try ChildProcess.run(["cache", "stats", "--cache-dir", file.path])
        #expect(run.status == 1)
        #expect(run.standardError.contains("unusable") && run.standardError.contains(file.path))
    }

    @Test func sizesParseWithUnits() throws {
        for (text, ok) in [("512K", true), ("1.5G", true), ("300MB", true), ("2GiB", true), ("lots", false), ("-1M", false)] {
            let run = try ChildProcess.run(["cache", "stats", "--cache-dir", directory.path, "--disk-limit", text])
            #expect((run.status == 0) == ok, "\(text): \(run.standardError)")
        }
    }
}
