import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// `thumbnailer cache stats|verify|clear` on a real cache directory.
@Suite struct CacheCommandTests {
    let temporary: TemporaryDirectory
    /// A folder outside the cache.
    let elsewhere: TemporaryDirectory
    var directory: URL { temporary.url }

    init() throws {
        temporary = try TemporaryDirectory()
        elsewhere = try TemporaryDirectory()
    }

    private func populate() async throws -> DiskCache {
        let cache = try DiskCache(directory: directory.path)
        for n in 0..<3 { try cache.store([UInt8](repeating: UInt8(n), count: 5_000), forKey: "o\(n)", in: .originals) }
        try cache.store([UInt8](repeating: 9, count: 20_000), forKey: "t", in: .thumbnails)
        return cache
    }

    private func json(_ text: String) async throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func statsCountsEntriesAndBytesPerNamespace() async throws {
        _ = try await populate()
        let run = try await ChildProcess.run(["cache", "stats", "--cache-dir", directory.path, "--json", "--disk-limit", "2M"])

        #expect(run.status == 0, "\(run.standardError)")
        let stats = try await json(run.standardOutput)
        #expect(stats["originalsEntries"] as? Int == 3 && stats["thumbnailsEntries"] as? Int == 1)
        #expect(stats["originalsBytes"] as? Int == 3 * 8192 && stats["thumbnailsBytes"] as? Int == 20_480)
        #expect(stats["sizeLimit"] as? Int == 2 << 20)
    }

    @Test func verifyReportsDamageAndRepairRemovesIt() async throws {
        _ = try await populate()
        let files = (FileManager.default.enumerator(atPath: directory.path)?.allObjects as? [String] ?? [])
            .filter { $0.hasPrefix("originals/") && $0.split(separator: "/").last?.count == 64 }
        let victim = directory.appendingPathComponent(try #require(files.first))
        var contents = try Data(contentsOf: victim)
        contents[contents.count - 1] ^= 1
        try contents.write(to: victim)

        let check = try await ChildProcess.run(["cache", "verify", "--cache-dir", directory.path])
        #expect(check.status == 1)
        #expect(check.standardOutput.contains("4 entries checked, 1 damaged"), "\(check.standardOutput)")
        #expect(FileManager.default.fileExists(atPath: victim.path), "verify alone removes nothing")

        let repair = try await ChildProcess.run(["cache", "verify", "--repair", "--cache-dir", directory.path, "--json"])
        #expect(repair.status == 1)
        let report = try await json(repair.standardOutput)
        #expect((report["damaged"] as? [String]) == [victim.path] && report["repaired"] as? Bool == true)
        #expect(!FileManager.default.fileExists(atPath: victim.path))

        let again = try await ChildProcess.run(["cache", "verify", "--cache-dir", directory.path])
        #expect(again.status == 0 && again.standardOutput.contains("3 entries checked, 0 damaged"))
    }

    @Test func clearEmptiesTheCache() async throws {
        let cache = try await populate()
        let run = try await ChildProcess.run(["cache", "clear", "--cache-dir", directory.path, "--json"])

        #expect(run.status == 0)
        await #expect(try json(run.standardOutput)["removedEntries"] as? Int == 4)
        #expect(try cache.statistics().totalEntries == 0)
    }

    /// A cache whose `originals/<xx>` folder was replaced by a symbolic link
    /// to a folder of entries outside it, and one of whose thumbnails is a link
    /// to an entry file outside it: what the links point at, and how many entries stay inside.
    private func cacheWithLinksOutside() async throws -> (outside: [String: Data], links: [String], inside: Int) {
        let cache = try DiskCache(directory: directory.path)
        for n in 0..<4 { try cache.store([UInt8](repeating: UInt8(n), count: 5_000), forKey: "o\(n)", in: .originals) }
        for n in 0..<2 { try cache.store([UInt8](repeating: UInt8(n), count: 6_000), forKey: "t\(n)", in: .thumbnails) }
        let files = FileManager.default
        let entries = (files.enumerator(atPath: directory.path)?.allObjects as? [String] ?? [])
            .filter { $0.split(separator: "/").last?.count == 64 }.sorted()
        let outside = elsewhere.url.path

        let shard = try #require(entries.first { $0.hasPrefix("originals/") }).split(separator: "/")[1]
        let shardFolder = "\(directory.path)/originals/\(shard)"
        try files.moveItem(atPath: shardFolder, toPath: "\(outside)/\(shard)")
        try files.createSymbolicLink(atPath: shardFolder, withDestinationPath: "\(outside)/\(shard)")
        let linkedEntries = entries.filter { $0.hasPrefix("originals/\(shard)/") }.count

        let thumbnail = "\(directory.path)/" + (try #require(entries.first { $0.hasPrefix("thumbnails/") }))
        let outsideThumbnail = "\(outside)/\(thumbnail.split(separator: "/").last!)"
        try files.moveItem(atPath: thumbnail, toPath: outsideThumbnail)
        try files.createSymbolicLink(atPath: thumbnail, withDestinationPath: outsideThumbnail)

        var contents: [String: Data] = [:]
        for name in files.enumerator(atPath: outside)?.allObjects as? [String] ?? [] where name.split(separator: "/").last?.count == 64 {
            contents["\(outside)/\(name)"] = try Data(contentsOf: URL(fileURLWithPath: "\(outside)/\(name)"))
        }
        #expect(contents.count == linkedEntries + 1)
        return (contents, [shardFolder, thumbnail], 6 - linkedEntries - 1)
    }

    private func expectUntouched(_ outside: [String: Data], links: [String]) {
        for (path, data) in outside {
            #expect((try? Data(contentsOf: URL(fileURLWithPath: path))) == data, "\(path) outside the cache changed")
        }
        for link in links {
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) != nil, "the link \(link) is left alone")
        }
    }

    /// `cache stats`, `verify --repair` and `clear` never follow a symbolic
    /// link inside the cache: they report it, count nothing behind it, and
    /// leave what it points at as it was. (Before, `clear` removed the entries
    /// behind a linked shard folder, and `stats` and `verify` counted them.)
    @Test func noCacheCommandFollowsASymbolicLinkOutOfTheCache() async throws {
        let (outside, links, inside) = try await cacheWithLinksOutside()
        // Damaged behind the link: a verify that followed it would report and remove it.
        let damagedPath = try #require(outside.keys.first { $0.hasSuffix(links[1].split(separator: "/").last!) })
        var damaged = try #require(outside[damagedPath])
        damaged[damaged.count - 1] ^= 1
        try damaged.write(to: URL(fileURLWithPath: damagedPath))
        var expected = outside
        expected[damagedPath] = damaged

        let stats = try await ChildProcess.run(["cache", "stats", "--cache-dir", directory.path, "--json"])
        #expect(stats.status == 0, "\(stats.standardError)")
        let counted = try await json(stats.standardOutput)
        #expect((counted["originalsEntries"] as? Int ?? 0) + (counted["thumbnailsEntries"] as? Int ?? 0) == inside, "\(counted)")
        #expect(Set(counted["symbolicLinks"] as? [String] ?? []) == Set(links), "\(counted)")

        let verify = try await ChildProcess.run(["cache", "verify", "--repair", "--cache-dir", directory.path])
        #expect(verify.status == 0, "\(verify.standardOutput) \(verify.standardError)")
        #expect(verify.standardOutput.contains("\(inside) entries checked, 0 damaged"), "\(verify.standardOutput)")
        for link in links { #expect(verify.standardOutput.contains("not checked \(link): a symbolic link, not followed")) }
        expectUntouched(expected, links: links)

        let clear = try await ChildProcess.run(["cache", "clear", "--cache-dir", directory.path])
        #expect(clear.status == 0, "\(clear.standardOutput) \(clear.standardError)")
        #expect(clear.standardOutput.contains("removed \(inside) entries"), "\(clear.standardOutput)")
        for link in links { #expect(clear.standardOutput.contains("left \(link): a symbolic link, not followed")) }
        expectUntouched(expected, links: links)
    }

    @Test func theDefaultDirectoryFollowsTheEnvironment() async throws {
        let custom = directory.appendingPathComponent("from-env")
        let run = try await ChildProcess.run(["cache", "stats"], environment: ["THUMBNAILER_CACHE_DIR": custom.path])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains(custom.path))

        let xdg = directory.appendingPathComponent("xdg")
        let viaXDG = try await ChildProcess.run(["cache", "stats"], environment: ["XDG_CACHE_HOME": xdg.path])
        #expect(viaXDG.standardOutput.contains("\(xdg.path)/thumbnailer"))
    }

    @Test func anUnusableDirectoryIsAClearErrorNotACrash() async throws {
        let file = directory.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        let run = try await ChildProcess.run(["cache", "stats", "--cache-dir", file.path])
        #expect(run.status == 64, "a usage error, as docs/caches.md says of refused directories")
        #expect(run.standardError.contains("\(file.path) is unusable: it is a file, not a directory"), "\(run.standardError)")
    }

    @Test func sizesParseWithUnits() async throws {
        for (text, ok) in [("512K", true), ("1.5G", true), ("300MB", true), ("2GiB", true), ("lots", false), ("-1M", false)] {
            let run = try await ChildProcess.run(["cache", "stats", "--cache-dir", directory.path, "--disk-limit", text])
            #expect((run.status == 0) == ok, "\(text): \(run.standardError)")
        }
    }
}
