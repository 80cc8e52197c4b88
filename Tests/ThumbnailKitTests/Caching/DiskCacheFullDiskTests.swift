import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// DiskCache on a disk that fills up: the `cache-torture full-disk` steps on a
/// 400 KiB tmpfs of the test's own (see ``TinyFileSystem``).
@Suite struct DiskCacheFullDiskTests {
    /// Each step's line of output, by step.
    let steps: [String: String]

    init() async throws {
        let torture = ChildProcess.product("cache-torture")
        guard TinyFileSystem.isAvailable else {
            steps = [:]
            return
        }
        let outcome = try await runBlocking {
            try TinyFileSystem.run("exec \"$TORTURE\" full-disk \"$MNT\"", kibibytes: 400, environment: ["TORTURE": torture])
        }
        #expect(outcome.status == 0, "\(outcome.standardOutput) \(outcome.standardError)")
        steps = Dictionary(outcome.standardOutput.split(separator: "\n").compactMap { line in
            line.firstRange(of: ": ").map { (String(line[..<$0.lowerBound]), String(line[$0.upperBound...])) }
        }, uniquingKeysWith: { first, _ in first })
    }

    /// The entry takes the last free page, its journal line finds none: the
    /// store succeeds all the same, and a cache opened afterwards counts it.
    @Test(.enabled(if: TinyFileSystem.isAvailable, "needs unshare -r -m to mount a tiny tmpfs"))
    func aJournalLineWithoutRoomDoesNotFailTheStore() {
        #expect(steps["journal without room"] == "stored")
        let reopened = steps["reopened"] ?? ""
        let counts = reopened.split(separator: " ")
        #expect(counts.count == 4 && counts[0] == counts[2], "every entry counted: \(reopened)")
    }

    /// A store and a streamed store that find the disk full evict the least
    /// recently used entries and succeed, passing over the entry this process
    /// has open, the least recently used of all.
    @Test(.enabled(if: TinyFileSystem.isAvailable, "needs unshare -r -m to mount a tiny tmpfs"))
    func aFullDiskEvictsTheLeastRecentlyUsedEntriesButNotAnOpenOne() {
        #expect(steps["store on a full disk"] == "stored; a kept, b gone, c kept, d kept")
        #expect(steps["stream on a full disk"] == "stored; a kept, c gone, d kept, e kept")
    }

    /// An entry the disk cannot hold even empty fails as a full disk, and leaves no temporary file.
    @Test(.enabled(if: TinyFileSystem.isAvailable, "needs unshare -r -m to mount a tiny tmpfs"))
    func anEntryLargerThanTheDiskIsAFullDiskError() {
        let outcome = steps["larger than the disk"] ?? ""
        #expect(outcome.hasPrefix("error disk full (No space left on device): could not write cache entry "), "\(outcome)")
        #expect(steps["temporary files"] == "0")
    }

    /// Without a free byte, a cache still opens, counts, verifies, repairs and clears.
    @Test(.enabled(if: TinyFileSystem.isAvailable, "needs unshare -r -m to mount a tiny tmpfs"))
    func maintenanceWorksWithoutAFreeByte() throws {
        let outcome = steps["maintenance on a full disk"] ?? ""
        let numbers = outcome.split(separator: " ").compactMap { Int($0) }
        #expect(outcome.hasSuffix("verified, 0 after clearing") && numbers.count == 3 && numbers[0] == numbers[1], "\(outcome)")
    }
}
