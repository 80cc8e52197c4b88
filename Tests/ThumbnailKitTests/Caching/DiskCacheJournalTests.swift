import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// The journal that keeps the instances of one cache directory (each with its
/// own index and its own lock, as separate processes have) in step.
@Suite struct DiskCacheJournalTests {
    let temporary: TemporaryDirectory
    var directory: String { temporary.url.path }

    init() throws {
        temporary = try TemporaryDirectory()
    }

    /// A writer killed in the middle of a journal line leaves it without its
    /// newline; the next writer ends that line before appending its own, so
    /// every other instance still reads the new record. (Without the newline
    /// the two lines run together into one unreadable line, and the other
    /// instances never count the new entry.)
    @Test func aLineAppendedAfterATornOneReachesTheOtherInstances() throws {
        let writer = try DiskCache(directory: directory)
        let reader = try DiskCache(directory: directory)
        #expect(try reader.statistics().totalEntries == 0)

        let journal = try #require(FileHandle(forWritingAtPath: "\(directory)/journal"))
        try journal.seekToEnd()
        try journal.write(contentsOf: Data("+ originals/\(String(repeating: "0", count: 64)) 40".utf8))
        try journal.close()

        try writer.store([UInt8](repeating: 7, count: 5_000), forKey: "after the tear", in: .originals)

        let seen = try reader.statistics()
        #expect(seen.entries[.originals] == 1, "the reader lost the writer's record: \(seen)")
        #expect(seen.bytes[.originals] == 8192, "and only that record: \(seen)")
        #expect(try writer.statistics().entries[.originals] == 1)
    }
}
