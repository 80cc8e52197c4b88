import Foundation
import TestSupport
import Testing
@testable import ThumbnailKit

/// DiskCache in one process: layout, checksums, limits, reopening.
@Suite struct DiskCacheTests {
    let temporary: TemporaryDirectory
    var directory: URL { temporary.url }

    init() throws {
        temporary = try TemporaryDirectory()
    }

    private func open(limit: Int = 1 << 20) throws -> DiskCache {
        try DiskCache(directory: directory.path, sizeLimit: limit)
    }

    private func bytes(_ count: Int, seed: UInt8 = 1) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    /// Every entry file under the cache directory.
    private func entryFiles() -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: directory.path)
        return (enumerator?.allObjects as? [String] ?? []).filter { $0.split(separator: "/").last?.count == 64 }
    }

    @Test func anEntryComesBackWithItsBytesAndMetadata() throws {
        let cache = try open()
        let metadata = DiskCacheMetadata(url: "https://example.com/a.jpg", etag: "\"v1\"",
                                         lastModified: "Sun, 22 Nov 2026 04:00:00 GMT", contentType: "image/jpeg")
        try cache.store(bytes(5000), forKey: "https://example.com/a.jpg", in: .originals, metadata: metadata)

        let entry = try #require(try cache.entry(forKey: "https://example.com/a.jpg", in: .originals))
        #expect(entry.bytes == bytes(5000))
        #expect(entry.key == "https://example.com/a.jpg")
        #expect(entry.metadata.etag == "\"v1\"" && entry.metadata.contentType == "image/jpeg")
        #expect(entry.metadata.lastModified == "Sun, 22 Nov 2026 04:00:00 GMT")
        #expect(abs(entry.metadata.storedAt - Int64(Date().timeIntervalSince1970)) < 60)
        #expect(try cache.entry(forKey: "https://example.com/a.jpg", in: .thumbnails) == nil, "namespaces are separate")
    }

    @Test func theSourceHeaderOfEveryFormatComesBackWithTheEntry() throws {
        let cache = try open()
        for file in ["jpeg-progressive-420-gradient-256x192.jpg", "png-rgba-8bit-67x43.png",
                     "webp-lossless-rgba-67x43.webp", "webp-lossy-alpha-vignette-256x192.webp"] {
            let source = try ThumbnailDecoder().readHeader(try Fixtures.bytes(ofTestImage: file))
            try cache.store(bytes(100), forKey: file, in: .thumbnails, metadata: DiskCacheMetadata(source: source))
            #expect(try cache.entry(forKey: file, in: .thumbnails)?.metadata.source == source, "\(file)")
        }
    }

    @Test func aSourceFieldFromBeforeWebPStillReads() throws {
        // 14 bytes, as written before the whole-image bytes per pixel: a 300×200 progressive colour JPEG.
        let field: [UInt8] = [0, 44, 1, 0, 0, 200, 0, 0, 0, 6, 0, 1, 3, 8]
        let header = try #require(ImageHeader(cacheField: field[...]))
        #expect(header.format == .jpeg && header.width == 300 && header.height == 200 && header.orientation == 6)
        #expect(header.isProgressive && header.wholeImageBytesPerPixel == 0)
        #expect(ImageHeader(cacheField: ([200] + field.dropFirst())[...]) == nil, "an unknown format code")
    }

    @Test func fileNamesAreDigestsNotUserText() throws {
        let cache = try open()
        try cache.store(bytes(10), forKey: "../../etc/passwd?x=1", in: .thumbnails)
        let files = entryFiles()
        #expect(files.count == 1)
        #expect(files.allSatisfy { !$0.contains("passwd") && $0.hasPrefix("thumbnails/") })
    }

    @Test func storingAgainReplacesTheEntry() throws {
        let cache = try open()
        try cache.store(bytes(3000, seed: 1), forKey: "k", in: .originals)
        try cache.store(bytes(7000, seed: 2), forKey: "k", in: .originals)
        #expect(try cache.entry(forKey: "k", in: .originals)?.bytes == bytes(7000, seed: 2))
        let statistics = try cache.statistics()
        #expect(statistics.entries[.originals] == 1)
        #expect(statistics.bytes[.originals] == 8192)
    }

    /// Damage that leaves the layout intact (a flipped value) only the SHA-256
    /// digest can catch; the rest the layout checks catch too.
    @Test(arguments: ["flip a payload byte", "flip a content type byte", "flip a storedAt byte", "truncate", "empty"],
          ["entry", "openEntry"])
    func aDamagedEntryIsRemovedAndReportedAsAMiss(damage: String, read: String) throws {
        let cache = try open()
        try cache.store(bytes(4000), forKey: "photo", in: .originals, metadata: DiskCacheMetadata(contentType: "image/jpeg"))
        let file = directory.appendingPathComponent(try #require(entryFiles().first))
        var contents = try Data(contentsOf: file)
        let metadataEnd = 48 + contents[4..<8].reversed().reduce(0) { $0 << 8 | Int($1) }
        switch damage {
        case "flip a payload byte": contents[contents.count - 10] ^= 0x40
        case "flip a content type byte": contents[try #require(contents.firstRange(of: Data("jpeg".utf8))).lowerBound] ^= 0x20
        case "flip a storedAt byte": contents[metadataEnd - 8] ^= 0x01  // the last field: its low byte
        case "truncate": contents = contents.prefix(contents.count / 2)
        default: contents = Data()
        }
        try contents.write(to: file)

        switch read {
        case "entry": #expect(try cache.entry(forKey: "photo", in: .originals) == nil)
        default: #expect(try cache.openEntry(forKey: "photo", in: .originals) == nil)
        }
        #expect(!FileManager.default.fileExists(atPath: file.path), "the damaged file is deleted")
        #expect(try cache.statistics().totalEntries == 0)
    }

    @Test func theLimitHoldsAfterEveryWriteAndEvictsTheLeastRecentlyUsed() throws {
        // 10 KB entries occupy 12 KiB each on disk; 40 KiB holds three.
        let cache = try open(limit: 40 * 1024)
        for name in ["a", "b", "c"] {
            try cache.store(bytes(10_000), forKey: name, in: .originals)
            usleep(5_000)  // distinct modification times
        }
        _ = try cache.entry(forKey: "a", in: .originals)  // a is now the most recently used
        try cache.store(bytes(10_000), forKey: "d", in: .thumbnails)

        #expect(try cache.entry(forKey: "b", in: .originals) == nil, "b was the least recently used")
        #expect(try cache.entry(forKey: "a", in: .originals) != nil)
        #expect(try cache.entry(forKey: "c", in: .originals) != nil)
        #expect(try cache.entry(forKey: "d", in: .thumbnails) != nil)
        let statistics = try cache.statistics()
        #expect(statistics.totalBytes <= 40 * 1024)
        #expect(statistics.totalBytes == entryFiles().count * 12_288)
    }

    @Test func manyWritesNeverLeaveMoreThanTheLimitOnDisk() throws {
        let limit = 256 * 1024
        let cache = try open(limit: limit)
        for n in 0..<120 {
            try cache.store(bytes(1_000 + (n * 7_919) % 50_000, seed: UInt8(n % 256)), forKey: "entry-\(n)", in: .originals)
            let onDisk = entryFiles().reduce(0) { total, file in
                let size = (try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(file).path)[.size] as? Int) ?? 0
                return total + (size + 4095) / 4096 * 4096
            }
            #expect(onDisk <= limit, "after write \(n)")
        }
    }

    @Test func anEntryLargerThanTheLimitIsRefusedAndNothingIsEvicted() throws {
        let cache = try open(limit: 64 * 1024)
        try cache.store(bytes(10_000), forKey: "small", in: .originals)
        #expect(throws: DiskCacheError.self) { try cache.store(self.bytes(70_000), forKey: "huge", in: .originals) }
        #expect(try cache.entry(forKey: "small", in: .originals) != nil)
        #expect(try cache.entry(forKey: "huge", in: .originals) == nil)
        #expect(entryFiles().count == 1, "no temporary file is left")
    }

    @Test func reopeningRebuildsTheIndexFromTheDirectory() throws {
        do {
            let cache = try open()
            for n in 0..<5 { try cache.store(bytes(2_000), forKey: "k\(n)", in: n % 2 == 0 ? .originals : .thumbnails) }
        }
        // Even with the journal gone, the directory is the truth.
        try FileManager.default.removeItem(at: directory.appendingPathComponent("journal"))
        let reopened = try open()
        let statistics = try reopened.statistics()
        #expect(statistics.entries[.originals] == 3 && statistics.entries[.thumbnails] == 2)
        #expect(try reopened.entry(forKey: "k4", in: .originals)?.bytes == bytes(2_000))
    }

    @Test func twoCachesOnOneDirectorySeeEachOthersEntriesAndShareTheLimit() throws {
        let first = try open(limit: 100 * 1024)
        let second = try open(limit: 100 * 1024)
        for n in 0..<6 { try first.store(bytes(15_000), forKey: "first-\(n)", in: .originals) }
        for n in 0..<6 { try second.store(bytes(15_000), forKey: "second-\(n)", in: .originals) }

        #expect(try first.statistics().totalBytes == second.statistics().totalBytes)
        #expect(try second.statistics().totalBytes <= 100 * 1024)
        #expect(entryFiles().count == 6, "100 KiB holds six 16 KiB entries, whichever process wrote them")
        #expect(try first.entry(forKey: "second-5", in: .originals) != nil)
    }

    @Test func aCacheNoticesAnotherInstanceRewritingTheJournal() throws {
        let first = try open()
        for n in 0..<3 { try first.store(bytes(1_000), forKey: "k\(n)", in: .originals) }
        // Opening and clearing both rewrite the journal as a new file, which
        // may well reuse the old file's inode number.
        let second = try open()
        try second.removeAll()
        #expect(try first.statistics().totalEntries == 0)
        try second.store(bytes(1_000), forKey: "after", in: .thumbnails)
        #expect(try first.statistics().entries[.thumbnails] == 1)
    }

    @Test func leftoverTemporaryFilesOfDeadWritersAreRemovedAtOpen() throws {
        let cache = try open()
        try cache.store(bytes(100), forKey: "k", in: .originals)
        let folder = directory.appendingPathComponent(try #require(entryFiles().first)).deletingLastPathComponent()
        // pid_max is at most 2^22 on Linux, so no process has this pid.
        let leftover = folder.appendingPathComponent(".tmp-\(Int32.max - 7)-123")
        try Data(bytes(50)).write(to: leftover)

        _ = try open()
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
        #expect(try cache.entry(forKey: "k", in: .originals) != nil)
    }

    @Test func verifyFindsAndRepairsDamagedEntries() throws {
        let cache = try open()
        for n in 0..<4 { try cache.store(bytes(3_000), forKey: "k\(n)", in: .originals) }
        let victim = directory.appendingPathComponent(try #require(entryFiles().sorted().first))
        var contents = try Data(contentsOf: victim)
        contents[100] ^= 0xFF
        try contents.write(to: victim)

        let report = try cache.verify(repair: false)
        #expect(report.checked == 4 && report.damaged.count == 1 && !report.repaired)
        let repaired = try cache.verify(repair: true)
        #expect(repaired.damaged.count == 1 && repaired.repaired)
        #expect(try cache.verify(repair: false).damaged.isEmpty)
        #expect(try cache.statistics().totalEntries == 3)
    }

    @Test func removeAllEmptiesIt() throws {
        let cache = try open()
        for n in 0..<4 { try cache.store(bytes(3_000), forKey: "k\(n)", in: .thumbnails) }
        try cache.removeAll()
        #expect(try cache.statistics().totalEntries == 0)
        #expect(entryFiles().isEmpty)
    }

    @Test func aFileWhereTheDirectoryShouldBeIsAClearError() throws {
        let file = directory.appendingPathComponent("not-a-directory")
        try Data("x".utf8).write(to: file)
        #expect { try DiskCache(directory: file.path) } throws: { error in
            guard case .unusableDirectory(let path, _) = error as? DiskCacheError else { return false }
            return path == file.path
        }
    }
}
