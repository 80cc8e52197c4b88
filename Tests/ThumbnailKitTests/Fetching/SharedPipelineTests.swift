import Foundation
import Synchronization
import TestSupport
import Testing
@testable import ThumbnailHTTP

/// The rules behind `ThumbnailPipeline.shared`, each on a slot of the test's
/// own (the process's one would be shared by every suite, in any order):
/// configured once before the first use, fixed by the first use, and a
/// default that cannot be made throws and fixes nothing. AdopterPackageTests
/// checks the process's own slot in a child process.
@Suite struct SharedPipelineTests {
    @Test func theConfiguredPipelineIsTheOneEveryUseGetsAndNoDefaultIsMade() throws {
        let defaults = DefaultConfigurations()
        let slot = SharedPipelineSlot(default: defaults.make)
        let directory = try TemporaryDirectory()
        try slot.configure(try .web(cacheDirectory: directory.path("cache")))

        let first = try slot.pipeline()
        #expect(first.configuration.diskCache?.directory == directory.path("cache"))
        #expect(try slot.pipeline() === first)
        #expect(defaults.made == 0)
    }

    @Test func theDefaultIsMadeAtTheFirstUseOnceAndKept() throws {
        let defaults = DefaultConfigurations()
        let slot = SharedPipelineSlot(default: defaults.make)
        #expect(defaults.made == 0, "nothing is made before the first use")

        let first = try slot.pipeline()
        #expect(try slot.pipeline() === first)
        #expect(defaults.made == 1)
    }

    @Test func configuringAfterTheFirstUseThrowsAndThePipelineInUseStays() throws {
        let slot = SharedPipelineSlot(default: DefaultConfigurations().make)
        let inUse = try slot.pipeline()

        #expect(throws: SharedPipelineError.alreadyInUse) { try slot.configure(.web(diskCache: nil)) }
        #expect(try slot.pipeline() === inUse)
    }

    @Test func configuringTwiceThrowsAndTheFirstConfigurationStands() throws {
        let slot = SharedPipelineSlot(default: DefaultConfigurations().make)
        try slot.configure(.init(memoryCostLimit: 1 << 20))

        #expect(throws: SharedPipelineError.alreadyConfigured) { try slot.configure(.init(memoryCostLimit: 2 << 20)) }
        #expect(try slot.pipeline().configuration.memoryCostLimit == 1 << 20)
    }

    /// The default directory holds other files: each use says so, nothing is
    /// written there, and the app can still configure a pipeline of its choosing.
    @Test func aRefusedDefaultDirectoryThrowsAtEachUseAndLeavesTheSlotToConfigure() throws {
        let directory = try TemporaryDirectory()
        try Data("mine".utf8).write(to: directory.url.appendingPathComponent("notes.txt"))
        let slot = SharedPipelineSlot { try .web(cacheDirectory: directory.path("")) }
        let refusal = UnsafeCacheDirectory.foreign(directory.path(""), holding: ["notes.txt"])

        #expect(throws: refusal) { try slot.pipeline() }
        #expect(throws: refusal, "a failed first use fixes nothing") { try slot.pipeline() }
        try slot.configure(.web(diskCache: nil))
        #expect(try slot.pipeline().configuration.diskCache == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path("")) == ["notes.txt"])
    }
}

/// The slot's default: a memory-only configuration, counted each time it is made.
private final class DefaultConfigurations: Sendable {
    private let count = Mutex(0)
    var made: Int { count.withLock { $0 } }

    var make: @Sendable () throws -> ThumbnailPipeline.Configuration {
        {
            self.count.withLock { $0 += 1 }
            return ThumbnailPipeline.Configuration()
        }
    }
}
