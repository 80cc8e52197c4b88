import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// Eviction never follows a symbolic link out of the cache: an entry whose
/// shard folder became a link after this instance recorded it is dropped from
/// the index, and the file the link reaches stays where it is.
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
}
