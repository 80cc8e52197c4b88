import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// What the cache did not write, in its folders: a folder named like an entry,
/// a stray file. It is no entry: not counted, not verified, not removed.
@Suite struct DiskCacheForeignEntryTests {
    let temporary: TemporaryDirectory
    let cache: DiskCache
    let folder: String
    let stray: String

    init() throws {
        temporary = try TemporaryDirectory()
        let directory = temporary.path("cache")
        cache = try DiskCache(directory: directory)
        for n in 0..<3 { try cache.store([UInt8](repeating: UInt8(n), count: 3_000), forKey: "k\(n)", in: .originals) }
        folder = "\(directory)/originals/ab/" + String(repeating: "ab", count: 32)
        stray = "\(directory)/thumbnails/notes.txt"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: stray))
    }

    @Test func removeAllRemovesTheEntriesAndLeavesAndReportsTheRest() throws {
        let removal = try cache.removeAll()
        #expect(removal.entries == 3 && removal.bytes == 3 * 4096)
        #expect(removal.foreign == [folder, stray])
        #expect(try cache.statistics().totalEntries == 0)
        #expect(FileManager.default.fileExists(atPath: folder) && FileManager.default.fileExists(atPath: stray))
    }

    @Test func aFolderNamedLikeAnEntryIsNeitherCountedNorVerified() throws {
        let reopened = try DiskCache(directory: cache.directory)  // rebuilt from the directory
        #expect(try reopened.statistics().totalEntries == 3)
        let report = try reopened.verify(repair: false)
        #expect(report.checked == 3 && report.damaged.isEmpty, "\(report.damaged)")
    }
}
