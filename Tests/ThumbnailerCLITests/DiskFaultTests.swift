import Foundation
import TestSupport
import Testing
import ThumbnailKit

#if canImport(Glibc)
import Glibc
#endif

/// `thumbnailer` when the disk says no: a tiny tmpfs that fills up (mounted in
/// a namespace of the test's own, see ``TinyFileSystem``), images served by
/// the loopback server, and the results each command leaves.
@Suite final class DiskFaultTests: Sendable {
    let server: TestHTTPServer
    let temporary: TemporaryDirectory

    /// About 4–7 kB each: an original and a 64 px thumbnail take three pages.
    static let smallImages = [
        "jpeg-baseline-420-gradient-256x192.jpg", "jpeg-baseline-444-gradient-256x192.jpg",
        "jpeg-baseline-422-gradient-256x192.jpg", "jpeg-progressive-444-gradient-256x192.jpg",
    ]
    /// 232 kB: 57 pages as an entry; its thumbnail at 1000 px is about 90 kB.
    static let portrait = "photo-friends-portrait-1000x1502.jpg"

    init() throws {
        server = try TestHTTPServer()
        temporary = try TemporaryDirectory()
        for name in Self.smallImages + [Self.portrait] {
            server.route("/images/\(name)", .init(body: try Fixtures.bytes(ofTestImage: name)))
        }
        serveFeed("/small.json", Self.smallImages)
        serveFeed("/portrait.json", [Self.portrait])
    }

    deinit { server.stop() }

    func serveFeed(_ path: String, _ names: [String]) {
        let items = names.enumerated().map { #"{"id": "\#($0)", "image": "/images/\#($1)"}"# }
        let feed = #"{"version": "https://jsonfeed.org/version/1.1", "title": "Disk", "items": [\#(items.joined(separator: ","))]}"#
        server.route(path, .init(body: Array(feed.utf8)))
    }

    /// Pages an entry holding `name` occupies at most (its header and metadata are well under 1 KiB).
    static func entryPages(_ name: String) async throws -> Int {
        (try Fixtures.bytes(ofTestImage: name).count + 1024 + TinyFileSystem.pageSize - 1) / TinyFileSystem.pageSize
    }

    /// Runs `script` on a 400 KiB tmpfs, with `$T` the binary, `$C` a cache
    /// directory on the tmpfs, `$SERVER` the loopback server, and shell functions:
    /// `step NAME COMMAND…` runs a command and keeps its status and output;
    /// `leave PAGES` fills the disk with a file and leaves that many pages free;
    /// `fill` fills it to the last byte; `leftovers` keeps the cache's temporary files' names.
    func onTinyDisk(_ script: String) async throws -> Steps {
        let results = temporary.url.appendingPathComponent("steps-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: results, withIntermediateDirectories: true)
        let prelude = #"""
            C="$MNT/cache"
            step() { name=$1; shift; "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"; echo $? > "$OUT/$name.status"; }
            fill() { head -c 1000000000 /dev/zero > "$MNT/filler" 2> /dev/null; }
            leave() { fill; truncate -s $(( ($(stat -c %s "$MNT/filler") / 4096 - $1) * 4096 )) "$MNT/filler"; }
            leftovers() { find "$C" -name '.tmp-*' > "$OUT/leftovers"; }

            """#
        let environment = ["T": ChildProcess.thumbnailer, "OUT": results.path, "SERVER": server.url("")]
        let outcome = try await runBlocking {
            try TinyFileSystem.run(prelude + script, kibibytes: 400, environment: environment)
        }
        #expect(outcome.status == 0, "the script: \(outcome.standardError)")
        return Steps(directory: results)
    }

    /// A thumbnail that the full disk refuses fails its image, by name and
    /// reason, though its original fit; the next run, once there is room,
    /// makes it from the stored original. (Before, the run exited 0 with
    /// "failed 0" and the thumbnail silently missing.)
    @Test(.enabled(if: TinyFileSystem.isAvailable, "needs unshare -r -m to mount a tiny tmpfs"))
    func aThumbnailTheFullDiskRefusesFailsItsImageAndTheNextRunFinishesIt() async throws {
        // Room for the original, the journal and a 64 px thumbnail, not for the 1000 px one (22 pages).
        let pages = try await Self.entryPages(Self.portrait) + 1 + 6
        let steps = try await onTinyDisk("""
            leave \(pages)
            step full "$T" warm "$SERVER/portrait.json" --cache-dir "$C" -s 1000 -s 64 --json
            leftovers
            rm "$MNT/filler"
            step freed "$T" warm "$SERVER/portrait.json" --cache-dir "$C" -s 1000 -s 64 --json
            step stats "$T" cache stats --cache-dir "$C" --json
            step verify "$T" cache verify --cache-dir "$C"
            """)

        #expect(steps.status("full") == 1, "\(steps.output("full")) \(steps.errors("full"))")
        let full = steps.json("full")
        let failures = try #require(full["failures"] as? [[String: String]])
        #expect(failures.map { $0["url"] } == [server.url("/images/\(Self.portrait)")])
        let reason = failures.first?["reason"] ?? ""
        #expect(reason.contains("not stored") && reason.contains("disk full (No space left on device)"), "\(reason)")
        #expect(full["failed"] as? Int == 1 && full["fetched"] as? Int == 0)
        #expect(steps.read("leftovers").isEmpty, "temporary files left: \(steps.read("leftovers"))")

        #expect(steps.status("freed") == 0, "\(steps.output("freed")) \(steps.errors("freed"))")
        let freed = steps.json("freed")
        #expect(freed["failed"] as? Int == 0)
        #expect(freed["madeFromStoredOriginals"] as? Int == 1, "the original was stored the first time: \(freed)")
        #expect(server.requestCount("/images/\(Self.portrait)") == 1)
        let stats = steps.json("stats")
        #expect(stats["originalsEntries"] as? Int == 1 && stats["thumbnailsEntries"] as? Int == 2, "\(stats)")
        #expect(steps.status("verify") == 0, "\(steps.output("verify"))")
    }

    /// On a full disk, the least recently used entries make room for a new
    /// image before the write gives up. (Before, the portrait failed.)
    @Test(.enabled(if: TinyFileSystem.isAvailable, "needs unshare -r -m to mount a tiny tmpfs"))
    func aFullDiskEvictsTheLeastRecentlyUsedEntriesBeforeGivingUp() async throws {
        // The small images take 12 pages; with them stored, the portrait (57 + 1) has about 54.
        let pages = try await Self.entryPages(Self.portrait) + 1 + 1 + 8
        let steps = try await onTinyDisk("""
            leave \(pages)
            step small "$T" warm "$SERVER/small.json" --cache-dir "$C" -s 64 --json
            step portrait "$T" warm "$SERVER/portrait.json" --cache-dir "$C" -s 64 --json
            step again "$T" warm "$SERVER/portrait.json" --cache-dir "$C" -s 64 --json
            leftovers
            """)

        #expect(steps.status("small") == 0, "\(steps.output("small")) \(steps.errors("small"))")
        #expect(steps.status("portrait") == 0, "\(steps.output("portrait")) \(steps.errors("portrait"))")
        let portrait = steps.json("portrait")
        #expect(portrait["fetched"] as? Int == 1 && portrait["failed"] as? Int == 0)
        let evicted = portrait["evictedEntries"] as? Int ?? 0
        #expect(evicted > 0 && evicted <= 2 * Self.smallImages.count, "\(portrait)")
        #expect(steps.json("again")["alreadyCached"] as? Int == 1, "the portrait is stored whole")
        #expect(steps.read("leftovers").isEmpty)
    }

    /// A disk too small for the feed: the run evicts images it had cached to
    /// make room for later ones, so it says so and exits 1; a rerun with room
    /// fetches again exactly those and the ones that failed. (Before: exit 0, "failed 0".)
    @Test(.enabled(if: TinyFileSystem.isAvailable, "needs unshare -r -m to mount a tiny tmpfs"))
    func aDiskTooSmallForTheFeedExitsOneAndCountsTheImagesItEvicted() async throws {
        // Room for two or three of the four images (three pages each with the journal's).
        let steps = try await onTinyDisk("""
            leave 8
            step small "$T" warm "$SERVER/small.json" --cache-dir "$C" -s 64 --concurrency 1 --decoders 1 --json
            rm "$MNT/filler"
            step again "$T" warm "$SERVER/small.json" --cache-dir "$C" -s 64 --json
            """)

        #expect(steps.status("small") == 1, "\(steps.output("small")) \(steps.errors("small"))")
        let small = steps.json("small")
        let evicted = small["evictedImages"] as? Int ?? 0
        #expect(evicted > 0, "\(small)")
        let line = small["diskLimitTooSmall"] as? String ?? ""
        #expect(line.hasPrefix("disk limit too small for this feed: \(evicted) images evicted during the run; need about"), "\(line)")
        #expect(line.hasSuffix("(the file system ran out of room first)"), "\(line)")
        let again = steps.json("again")
        #expect(steps.status("again") == 0, "\(steps.output("again"))")
        let failed = small["failed"] as? Int ?? 0
        #expect(Self.smallImages.count - (again["alreadyCached"] as? Int ?? 0) == evicted + failed, "\(small) then \(again)")
    }

    /// `cache stats`, `verify`, `verify --repair`, `clear` and a `warm` with
    /// nothing to do all work on a disk without a free byte (before, each
    /// exited 1 with "cannot write …/journal.new: No space left on device"),
    /// and the room `clear` makes is enough for the next run.
    @Test(.enabled(if: TinyFileSystem.isAvailable, "needs unshare -r -m to mount a tiny tmpfs"))
    func everyCommandWorksOnAFullDiskAndClearMakesRoom() async throws {
        let steps = try await onTinyDisk("""
            step first "$T" warm "$SERVER/small.json" --cache-dir "$C" -s 64 --json
            fill
            step warm "$T" warm "$SERVER/small.json" --cache-dir "$C" -s 64 --json
            step stats "$T" cache stats --cache-dir "$C" --json
            step verify "$T" cache verify --cache-dir "$C"
            step repair "$T" cache verify --repair --cache-dir "$C"
            step clear "$T" cache clear --cache-dir "$C" --json
            step rerun "$T" warm "$SERVER/small.json" --cache-dir "$C" -s 64 --json
            head -n 1 "$C/journal" > "$OUT/journal"
            leftovers
            """)

        #expect(steps.status("first") == 0, "\(steps.errors("first"))")
        for step in ["warm", "stats", "verify", "repair", "clear", "rerun"] {
            #expect(steps.status(step) == 0, "\(step): \(steps.output(step)) \(steps.errors(step))")
        }
        #expect(steps.json("warm")["alreadyCached"] as? Int == Self.smallImages.count)
        #expect(steps.json("stats")["originalsEntries"] as? Int == Self.smallImages.count)
        #expect(steps.output("verify").contains("8 entries checked, 0 damaged"), "\(steps.output("verify"))")
        #expect(steps.json("clear")["removedEntries"] as? Int == 2 * Self.smallImages.count)
        let rerun = steps.json("rerun")
        #expect(rerun["fetched"] as? Int == Self.smallImages.count && rerun["failed"] as? Int == 0, "\(rerun)")
        #expect(steps.read("journal").hasPrefix("thumbnailer-journal "), "a whole journal: \(steps.read("journal"))")
        #expect(steps.read("leftovers").isEmpty)
    }

    /// Under a file size limit (`prlimit --fsize`, in bytes), the cache
    /// commands work without a journal, and a warm-up fails the images whose
    /// originals pass the limit, by name. (Before, SIGXFSZ killed the process.)
    @Test func aFileSizeLimitFailsTheFilesItStopsNotTheProcess() async throws {
        let directory = temporary.path("cache")
        func limited(_ bytes: Int, _ arguments: [String]) async throws -> ChildProcess.Outcome {
            try await runBlocking {
                try ChildProcess.run(["--fsize=\(bytes)", ChildProcess.thumbnailer] + arguments, executable: "/usr/bin/prlimit")
            }
        }
        // Not even the journal's first line fits.
        let stats = try await limited(16, ["cache", "stats", "--cache-dir", directory])
        #expect(stats.status == 0, "\(stats.standardError)")
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/journal.new"))

        // The journal and the summary fit; no original (4 to 7 kB) does.
        let warm = try await limited(4096, ["warm", server.url("/small.json"), "--cache-dir", directory, "--json"])
        #expect(warm.status == 1, "\(warm.standardError)")
        let summary = (try? JSONSerialization.jsonObject(with: Data(warm.standardOutput.utf8))) as? [String: Any] ?? [:]
        let failures = try #require(summary["failures"] as? [[String: String]])
        #expect(Set(failures.compactMap { $0["url"] }) == Set(Self.smallImages.map { server.url("/images/\($0)") }))
        #expect(failures.allSatisfy { $0["reason"]?.hasPrefix("file size limit (File too large)") == true }, "\(failures)")
    }

    /// `cache clear` removes every entry and leaves, and lists, what the
    /// cache did not write. (Before, it stopped at the first directory.)
    @Test func clearLeavesAndListsWhatIsNotAnEntry() async throws {
        let directory = temporary.path("cache")
        let cache = try DiskCache(directory: directory)
        for n in 0..<3 { try cache.store([UInt8](repeating: UInt8(n), count: 3_000), forKey: "k\(n)", in: .originals) }
        let folder = "\(directory)/originals/ab/" + String(repeating: "ab", count: 32)
        let stray = "\(directory)/thumbnails/notes.txt"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: stray))

        let run = try await ChildProcess.run(["cache", "clear", "--cache-dir", directory])
        #expect(run.status == 0, "\(run.standardOutput) \(run.standardError)")
        #expect(run.standardOutput.contains("left \(folder): not a cache entry"), "\(run.standardOutput)")
        #expect(run.standardOutput.contains("left \(stray): not a cache entry"), "\(run.standardOutput)")
        #expect(run.standardOutput.contains("removed 3 entries"), "\(run.standardOutput)")
        #expect(try cache.statistics().totalEntries == 0)
        #expect(FileManager.default.fileExists(atPath: folder) && FileManager.default.fileExists(atPath: stray))
    }

    /// Every command that takes a cache directory.
    static let cacheCommands = [["warm", "feed.json"], ["browse", "feed.json"], ["cache", "stats"],
                                ["cache", "verify"], ["cache", "clear"]]

    /// Runs the binary, as `nobody` when the tests run as root (who may write anywhere).
    static func runUnprivileged(_ arguments: [String], environment: [String: String] = [:]) async throws -> ChildProcess.Outcome {
        guard getuid() == 0 else { return try await ChildProcess.run(arguments, environment: environment) }
        return try await ChildProcess.run(["--reuid=65534", "--regid=65534", "--clear-groups", ChildProcess.thumbnailer] + arguments,
                                    executable: "/usr/bin/setpriv", environment: environment)
    }

    /// `/` is refused before anything is written there. As root the command
    /// runs as `nobody`, so that a build that does not refuse cannot write to `/` either.
    @Test(arguments: cacheCommands)
    func theRootDirectoryIsRefused(command: [String]) async throws {
        let run = try await Self.runUnprivileged(command + ["--cache-dir", "/"])
        #expect(run.status == 64, "\(run.standardOutput) \(run.standardError)")
        #expect(run.standardError.contains("refusing the cache directory: / is the root directory"), "\(run.standardError)")
        #expect(run.standardError.contains("--force"))
    }

    @Test(arguments: cacheCommands)
    func theHomeDirectoryIsRefused(command: [String]) async throws {
        let home = temporary.path("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let run = try await ChildProcess.run(command + ["--cache-dir", home + "/"], environment: ["HOME": home])
        #expect(run.status == 64, "\(run.standardOutput) \(run.standardError)")
        #expect(run.standardError.contains("is the home directory"), "\(run.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: home).isEmpty, "nothing written")
    }

    @Test(arguments: cacheCommands)
    func aFolderOfOtherFilesIsRefused(command: [String]) async throws {
        let folder = temporary.path("documents")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("letter".utf8).write(to: URL(fileURLWithPath: "\(folder)/letter.txt"))
        let run = try await ChildProcess.run(command + ["--cache-dir", folder])
        #expect(run.status == 64, "\(run.standardOutput) \(run.standardError)")
        #expect(run.standardError.contains("already holds other files (letter.txt) and no cache"), "\(run.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["letter.txt"], "nothing written")
    }

    /// A file given as the cache directory, or a path under one, is a usage
    /// error that says so. (Before, exit 1.)
    @Test(arguments: cacheCommands)
    func aFileIsNoCacheDirectory(command: [String]) async throws {
        let file = temporary.path("file")
        try Data("mine".utf8).write(to: URL(fileURLWithPath: file))
        for (directory, named) in [(file, "it"), (file + "/cache", file)] {
            let run = try await ChildProcess.run(command + ["--cache-dir", directory])
            #expect(run.status == 64, "\(directory): \(run.standardOutput) \(run.standardError)")
            #expect(run.standardError.contains("\(directory) is unusable: \(named) is a file, not a directory"), "\(run.standardError)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data("mine".utf8))
    }

    /// A directory this process cannot write in is a usage error with the
    /// reason, found by trying to write there. Root writes anywhere, so as
    /// root the command runs as `nobody`. (Before, exit 1.)
    @Test(arguments: cacheCommands)
    func aReadOnlyDirectoryIsAUsageError(command: [String]) async throws {
        let directory = temporary.path("read-only")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // Reachable by `nobody`, writable by no one but root.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: temporary.url.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory)
        let run = try await Self.runUnprivileged(command + ["--cache-dir", directory])
        #expect(run.status == 64, "\(run.standardOutput) \(run.standardError)")
        #expect(run.standardError.contains("\(directory) is unusable: it is not writable (Permission denied)"), "\(run.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty, "nothing written")
    }

    /// `cache stats --store` does not use the disk cache, so a directory it
    /// could not write is no reason to refuse it: it gets as far as the store.
    @Test func statsOfAStoreNeedsNoWritableCacheDirectory() async throws {
        let directory = temporary.path("read-only-for-store")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: temporary.url.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory)
        // A store on a loopback port nobody listens on: refused at once, no network.
        let store = ["AWS_ENDPOINT_URL": "http://127.0.0.1:9", "AWS_REGION": "us-east-1",
                     "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"]
        let run = try await Self.runUnprivileged(["cache", "stats", "--cache-dir", directory, "--store", "s3://bucket/prefix"],
                                           environment: store)
        #expect(!run.standardError.contains("unusable"), "\(run.standardError)")
        #expect(run.status != 64, "\(run.standardOutput) \(run.standardError)")
    }

    @Test func forceUsesAFolderOfOtherFilesAnyway() async throws {
        let folder = temporary.path("documents")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("letter".utf8).write(to: URL(fileURLWithPath: "\(folder)/letter.txt"))
        let run = try await ChildProcess.run(["cache", "stats", "--cache-dir", folder, "--force"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(FileManager.default.fileExists(atPath: "\(folder)/originals"))
        let again = try await ChildProcess.run(["cache", "stats", "--cache-dir", folder])
        #expect(again.status == 0, "a cache now: \(again.standardError)")
    }
}

/// What each `step` of a tiny-disk script left: its exit status and output.
struct Steps {
    let directory: URL

    func status(_ step: String) -> Int32? { Int32(read("\(step).status").trimmingCharacters(in: .whitespacesAndNewlines)) }
    func output(_ step: String) -> String { read("\(step).out") }
    func errors(_ step: String) -> String { read("\(step).err") }
    func json(_ step: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(output(step).utf8))) as? [String: Any] ?? [:]
    }

    /// A file the script wrote to `$OUT` itself.
    func read(_ name: String) -> String {
        (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? ""
    }
}
