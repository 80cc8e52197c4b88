import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// Which directories may hold a cache: not `/`, not the home directory, not a
/// folder of other files; a new, empty or cache directory may.
@Suite struct CacheLocationRefusalTests {
    let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory()
    }

    func makeDirectory(_ name: String, files: [String] = []) throws -> String {
        let path = temporary.path(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for file in files { try Data("x".utf8).write(to: URL(fileURLWithPath: "\(path)/\(file)")) }
        return path
    }

    @Test func aNewOrEmptyDirectoryMayHoldACache() throws {
        #expect(CacheLocation.refusal(for: temporary.path("not-yet")) == nil)
        #expect(CacheLocation.refusal(for: try makeDirectory("empty")) == nil)
    }

    @Test func theRootDirectoryIsRefusedHoweverItIsSpelled() throws {
        #expect(CacheLocation.refusal(for: "/") == .root("/"))
        #expect(CacheLocation.refusal(for: "//") == .root("//"))
        #expect(CacheLocation.refusal(for: "/tmp/..") == .root("/tmp/.."))
    }

    @Test func theHomeDirectoryIsRefusedAlsoThroughALink() throws {
        let home = try #require(ProcessInfo.processInfo.environment["HOME"], "HOME is set")
        #expect(CacheLocation.refusal(for: home) == .home(home))
        let link = temporary.path("home-link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: home)
        #expect(CacheLocation.refusal(for: link) == .home(link))
    }

    @Test func aFolderOfOtherFilesIsRefusedNamingAFewOfThem() throws {
        let folder = try makeDirectory("documents", files: ["d.txt", "a.txt", "c.txt", "b.txt"])
        #expect(CacheLocation.refusal(for: folder) == .foreign(folder, holding: ["a.txt", "b.txt", "c.txt", "…"]))
    }

    @Test func aCacheWithAStrayFileMayStillBeUsed() throws {
        let directory = temporary.path("cache")
        _ = try DiskCache(directory: directory)
        try Data("notes".utf8).write(to: URL(fileURLWithPath: "\(directory)/notes.txt"))
        #expect(CacheLocation.refusal(for: directory) == nil)
    }

    @Test func aJournalOfOursMarksACacheWhoseTiersAreGone() throws {
        let directory = temporary.path("cache")
        _ = try DiskCache(directory: directory)
        for tier in ["originals", "thumbnails"] { try FileManager.default.removeItem(atPath: "\(directory)/\(tier)") }
        #expect(CacheLocation.refusal(for: directory) == nil)
        try Data("not a journal".utf8).write(to: URL(fileURLWithPath: "\(directory)/journal"))
        #expect(CacheLocation.refusal(for: directory) == .foreign(directory, holding: ["journal", "lock"]))
    }
}
