import Foundation
import TestSupport
import Testing
import ThumbnailKit

#if canImport(Glibc)
import Glibc
#endif

/// DiskCache against real processes: killed writers, concurrent writers, a
/// file size limit. The children are the `cache-torture` tool.
@Suite(.serialized) struct DiskCacheProcessTests {
    let temporary: TemporaryDirectory
    var directory: URL { temporary.url }
    let torture = ChildProcess.product("cache-torture")

    init() throws {
        temporary = try TemporaryDirectory()
    }

    @Test func writersKilledAtRandomMomentsNeverLeaveAnEntryThatIsServedCorrupt() async throws {
        let (directory, torture) = (directory, torture)
        let outcomes = try await runBlocking {
            var generator = SystemRandomNumberGenerator()
            return try (0..<24).map { round in
                let child = try ChildProcess.start(["write-loop", directory.path, "\(2 << 20)", "\(round + 1)"], executable: torture)
                // Wait until it has stored something, then let it write for a random while.
                var waited = 0
                while !child.standardOutputSoFar.contains("stored") && waited < 30_000 {
                    usleep(2_000)
                    waited += 2
                }
                usleep(UInt32.random(in: 1_000...60_000, using: &generator))
                return child.kill()
            }
        }
        for (round, outcome) in outcomes.enumerated() {
            #expect(outcome.status == 128 + SIGKILL, "round \(round): \(outcome.standardOutput)")
        }

        let cache = try DiskCache(directory: directory.path, sizeLimit: 2 << 20)
        let report = try cache.verify(repair: false)
        #expect(report.checked > 0)
        #expect(report.damaged.isEmpty, "\(report.damaged)")
        let statistics = try cache.statistics()
        #expect(statistics.totalBytes <= 2 << 20)
        let leftovers = (FileManager.default.enumerator(atPath: directory.path)?.allObjects as? [String] ?? [])
            .filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty, "temporary files of killed writers are cleaned at open: \(leftovers)")
    }

    @Test func concurrentProcessesShareOneLimitWithoutCorruption() async throws {
        let (directory, torture) = (directory, torture)
        let limit = 512 * 1024
        let outcomes = try await runBlocking {
            let children = try (0..<4).map { seed in
                try ChildProcess.start(["write-n", directory.path, "\(limit)", "60", "\(seed)"], executable: torture)
            }
            return children.map { $0.wait() }
        }
        for outcome in outcomes {
            #expect(outcome.status == 0, "\(outcome.standardOutput) \(outcome.standardError)")
        }

        let cache = try DiskCache(directory: directory.path, sizeLimit: limit)
        #expect(try cache.verify(repair: false).damaged.isEmpty)
        let statistics = try cache.statistics()
        #expect(statistics.totalBytes <= limit)
        #expect(statistics.totalEntries > 0)
    }

    /// Reads take no lock and write no journal line: a hit refreshes the
    /// file's modification time, which an evicting process checks before it
    /// removes the entry its own records call the oldest.
    @Test func aReadInOneProcessProtectsTheEntryFromEvictionInAnother() async throws {
        let (directory, torture) = (directory, torture)
        let writer = try ChildProcess.start(["evict-one", directory.path], executable: torture)
        let stored = try await eventually { writer.standardOutputSoFar.contains("stored") }
        #expect(stored, "the writer stored a, b and c")
        let reader = try await runBlocking { try ChildProcess.run(["read", directory.path, "a"], executable: torture) }
        #expect(reader.standardOutput == "hit\n", "\(reader.standardOutput) \(reader.standardError)")
        try Data().write(to: directory.appendingPathComponent("go"))
        let evicting = try await runBlocking { writer.wait(within: .init(duration: .seconds(60))) }

        #expect(evicting.status == 0, "\(evicting.standardOutput)")
        #expect(evicting.standardOutput == "stored\na c d\n", "a, read by the other process since b was stored, outlives b")
    }

    @Test func aFailedWriteIsAClearErrorAndLeavesTheCacheAsItWas() async throws {
        let (directory, torture) = (directory, torture)
        let outcome = try await runBlocking { try ChildProcess.run(["file-size-limit", directory.path], executable: torture) }
        #expect(outcome.status == 0, "\(outcome.standardOutput) \(outcome.standardError)")
        #expect(outcome.standardOutput.contains("storageFull"))
        #expect(outcome.standardOutput.contains("streamed storageFull: ") && outcome.standardOutput.contains("File too large"))
        let leftovers = (FileManager.default.enumerator(atPath: directory.path)?.allObjects as? [String] ?? [])
            .filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty, "a failed streamed write removes its temporary file: \(leftovers)")

        let cache = try DiskCache(directory: directory.path)
        #expect(try cache.verify(repair: false).damaged.isEmpty)
        #expect(try cache.statistics().totalEntries == 1)
    }
}
