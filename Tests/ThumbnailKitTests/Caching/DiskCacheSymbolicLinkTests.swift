import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// The cache never follows a symbolic link out of its directory: eviction
/// drops an entry whose shard folder became a link after this instance
/// recorded it, and leaves the file the link reaches where it is; a write
/// through a linked namespace or shard folder is refused with
/// ``DiskCacheError/notAFolder(_:symbolicLink:)`` and leaves nothing outside;
/// a read through one is a miss and touches nothing.
@Suite struct DiskCacheSymbolicLinkTests {
    let temporary: TemporaryDirectory
    /// A folder outside the cache.
    let elsewhere: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory()
        elsewhere = try TemporaryDirectory()
    }

    @Test func evictionRemovesNothingBehindALinkedShardFolder() throws {
        let directory = temporary.url.path
        let cache = try DiskCache(directory: directory, sizeLimit: 40 << 10)
        for n in 0..<4 { try cache.store([UInt8](repeating: UInt8(n), count: 5_000), forKey: "o\(n)", in: .originals) }
        // The oldest entry's shard folder, moved out and linked back in place.
        let hex = SHA256.hexDigest(of: "o0")
        let shard = "\(directory)/originals/\(hex.prefix(2))"
        let outside = "\(elsewhere.url.path)/\(hex.prefix(2))"
        try FileManager.default.moveItem(atPath: shard, toPath: outside)
        try FileManager.default.createSymbolicLink(atPath: shard, withDestinationPath: outside)
        let kept = try Data(contentsOf: URL(fileURLWithPath: "\(outside)/\(hex)"))

        // Needs the room of the oldest entries: o0's record is evicted first.
        try cache.store([UInt8](repeating: 9, count: 20_000), forKey: "big", in: .originals)

        #expect(cache.evictions.entries >= 1)
        #expect((try? Data(contentsOf: URL(fileURLWithPath: "\(outside)/\(hex)"))) == kept, "the file behind the link is left alone")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: shard)) == outside)
    }

    /// The shard folder `key`'s entry goes in, replaced by a link to an empty
    /// folder outside the cache: the folder's path in the cache and the outside one.
    private func linkShardFolder(of key: String, in namespace: String = "originals") throws -> (shard: String, outside: String) {
        let shard = String(SHA256.hexDigest(of: key).prefix(2))
        let inside = "\(temporary.url.path)/\(namespace)/\(shard)"
        let outside = "\(elsewhere.url.path)/\(shard)"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(atPath: inside)
        try FileManager.default.createSymbolicLink(atPath: inside, withDestinationPath: outside)
        return (inside, outside)
    }

    private func contents(of folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder)
    }

    private func isRefusal(_ error: any Error, naming path: String, symbolicLink: Bool = true) -> Bool {
        guard case let .notAFolder(named, isLink) = error as? DiskCacheError else { return false }
        return named == path && isLink == symbolicLink && "\(error)".contains(path)
    }

    @Test func storingThroughALinkedShardFolderIsRefusedAndWritesNothingOutside() throws {
        let cache = try DiskCache(directory: temporary.url.path)
        let (shard, outside) = try linkShardFolder(of: "k")

        #expect { try cache.store([1, 2, 3], forKey: "k", in: .originals) } throws: { isRefusal($0, naming: shard) }
        #expect(try contents(of: outside).isEmpty, "nothing is written through the link")
        #expect(try cache.entry(forKey: "k", in: .originals) == nil)
        #expect(try cache.statistics().totalEntries == 0)
    }

    @Test func storingThroughALinkedNamespaceFolderIsRefusedAndWritesNothingOutside() throws {
        let directory = temporary.url.path
        let cache = try DiskCache(directory: directory)
        try FileManager.default.removeItem(atPath: "\(directory)/thumbnails")
        try FileManager.default.createSymbolicLink(atPath: "\(directory)/thumbnails", withDestinationPath: elsewhere.url.path)

        #expect { try cache.store([1, 2, 3], forKey: "k", in: .thumbnails) } throws: {
            isRefusal($0, naming: "\(directory)/thumbnails")
        }
        #expect(try contents(of: elsewhere.url.path).isEmpty, "not even a shard folder is made through the link")
    }

    @Test func aFileWhereAShardFolderShouldBeIsRefusedByName() throws {
        let cache = try DiskCache(directory: temporary.url.path)
        let shard = "\(temporary.url.path)/originals/\(SHA256.hexDigest(of: "k").prefix(2))"
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: shard))

        #expect { try cache.store([1, 2, 3], forKey: "k", in: .originals) } throws: {
            isRefusal($0, naming: shard, symbolicLink: false)
        }
        #expect(try cache.entry(forKey: "k", in: .originals) == nil)
    }

    @Test func aStreamedEntryIsNeverWrittenThroughALinkedShardFolder() throws {
        let cache = try DiskCache(directory: temporary.url.path)
        let (shard, outside) = try linkShardFolder(of: "k")

        #expect { try cache.makeEntryWriter(forKey: "k", in: .originals) } throws: { isRefusal($0, naming: shard) }
        #expect(try contents(of: outside).isEmpty)
    }

    /// A download takes a while: the shard folder it began in is moved out of
    /// the cache and linked back before it commits. The commit refuses the
    /// entry and removes its temporary file from the folder now outside.
    @Test func aStreamedEntryWhoseShardFolderIsLinkedMeanwhileIsRefusedAtCommit() throws {
        let directory = temporary.url.path
        let cache = try DiskCache(directory: directory)
        let writer = try cache.makeEntryWriter(forKey: "k", in: .originals)
        try [UInt8](repeating: 7, count: 10_000).withUnsafeBytes { try writer.append($0) }
        let shard = "\(directory)/originals/\(SHA256.hexDigest(of: "k").prefix(2))"
        let outside = "\(elsewhere.url.path)/moved"
        try FileManager.default.moveItem(atPath: shard, toPath: outside)
        try FileManager.default.createSymbolicLink(atPath: shard, withDestinationPath: outside)

        #expect { try writer.commit() } throws: { isRefusal($0, naming: shard) }
        #expect(try contents(of: outside).isEmpty, "neither the entry nor its temporary file is left outside")
        #expect(try cache.entry(forKey: "k", in: .originals) == nil)
    }

    /// An entry planted outside the cache, reached through a linked shard
    /// folder: every read is a miss, and the file is neither changed nor touched
    /// (its modification time, which a hit would refresh, is kept).
    @Test func anEntryBehindALinkedShardFolderIsAMissAndIsNotTouched() throws {
        let directory = temporary.url.path
        let cache = try DiskCache(directory: directory)
        let planted = [UInt8](repeating: 3, count: 5_000)
        try cache.store(planted, forKey: "k", in: .originals)
        let hex = SHA256.hexDigest(of: "k")
        let shard = "\(directory)/originals/\(hex.prefix(2))"
        let outside = "\(elsewhere.url.path)/\(hex.prefix(2))"
        try FileManager.default.moveItem(atPath: shard, toPath: outside)
        try FileManager.default.createSymbolicLink(atPath: shard, withDestinationPath: outside)
        let file = "\(outside)/\(hex)"
        let longAgo = Date(timeIntervalSince1970: 1_000_000_000)
        try FileManager.default.setAttributes([.modificationDate: longAgo], ofItemAtPath: file)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))

        #expect(try cache.entry(forKey: "k", in: .originals) == nil)
        #expect(try cache.openEntry(forKey: "k", in: .originals) == nil)
        #expect(!cache.containsEntry(forKey: "k", in: .originals))

        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect(attributes[.modificationDate] as? Date == longAgo, "the file outside is not touched")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == bytes)
    }

    /// A journal replaced by a link to another cache's journal (a valid one, so reading it
    /// would take that cache's records for this one's): the cache reads it as no journal and
    /// writes a journal of its own in its place, and the other journal is never appended to.
    @Test func aJournalReplacedByALinkIsNeverReadOrWrittenThrough() throws {
        let directory = temporary.url.path
        let other = "\(elsewhere.url.path)/other"
        try DiskCache(directory: other).store([7, 8, 9], forKey: "theirs", in: .originals)
        let otherJournal = try Data(contentsOf: URL(fileURLWithPath: "\(other)/journal"))
        let cache = try DiskCache(directory: directory)
        try cache.store([1, 2, 3], forKey: "before", in: .originals)
        try FileManager.default.removeItem(atPath: "\(directory)/journal")
        try FileManager.default.createSymbolicLink(atPath: "\(directory)/journal", withDestinationPath: "\(other)/journal")

        try cache.store([4, 5, 6], forKey: "after", in: .originals)
        try cache.removeEntry(forKey: "before", in: .originals)

        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(other)/journal")) == otherJournal)
        let journal = try FileManager.default.attributesOfItem(atPath: "\(directory)/journal")
        #expect(journal[.type] as? FileAttributeType == .typeRegular)
        #expect(try cache.statistics().totalEntries == 1)
    }

    /// A lock file replaced by a link: the cache refuses the directory rather than open the link.
    @Test func aLockFileReplacedByALinkMakesTheDirectoryUnusable() throws {
        let directory = temporary.url.path
        _ = try DiskCache(directory: directory)
        let outside = "\(elsewhere.url.path)/lock-target"
        try Data().write(to: URL(fileURLWithPath: outside))
        try FileManager.default.removeItem(atPath: "\(directory)/lock")
        try FileManager.default.createSymbolicLink(atPath: "\(directory)/lock", withDestinationPath: outside)

        #expect {
            try DiskCache(directory: directory)
        } throws: { error in
            guard case let .unusableDirectory(_, reason)? = error as? DiskCacheError else { return false }
            return reason.contains("lock")
        }
    }
}
