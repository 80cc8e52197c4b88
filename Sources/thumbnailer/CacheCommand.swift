import ArgumentParser
import CommandLineSupport
import ThumbnailHTTP
import ThumbnailKit
import ThumbnailTerminal

/// `thumbnailer cache stats|verify|clear`: look after the disk cache. Lines
/// naming the directory or an entry are escaped (``TerminalText``): a path may hold anything.
/// None of them follows a symbolic link inside the cache: each is listed and left alone.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect, check or empty the disk cache.",
        subcommands: [Stats.self, Verify.self, Clear.self])

    /// Options every cache subcommand takes.
    struct Location: ParsableArguments {
        @OptionGroup var cache: CacheOptions

        @Flag(help: "Print one JSON object instead of text.")
        var json = false

        /// Opens (creating if needed) the cache; a failure says what is wrong and exits 1.
        func open() throws -> DiskCache {
            try cache.open()
        }
    }

    /// The line that names a symbolic link found inside the cache, escaped.
    static func skipped(_ path: String, _ verb: String) -> String {
        TerminalText.escaped("\(verb) \(path): a symbolic link, not followed")
    }

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Entries and bytes per namespace against the limit.",
            discussion: "With --store, the objects and bytes under the object store's prefix instead (a listing, 1000 keys a request).")

        @OptionGroup var location: Location

        @OptionGroup var store: StoreOptions

        func validate() throws {
            if store.store == nil { try location.cache.validateUsable() }
        }

        func run() async throws {
            if let objectStore = try await store.open() {
                try await printStatistics(of: objectStore)
                return
            }
            let cache = try location.open()
            let statistics = try cache.statistics()
            if location.json {
                var line = JSONLine()
                line.add("directory", cache.directory)
                for namespace in DiskCache.Namespace.allCases {
                    line.add("\(namespace.rawValue)Entries", statistics.entries[namespace])
                    line.add("\(namespace.rawValue)Bytes", statistics.bytes[namespace])
                }
                line.add("totalBytes", statistics.totalBytes)
                line.add("sizeLimit", statistics.sizeLimit)
                line.add("symbolicLinks", statistics.symbolicLinks)
                print(line.text)
                return
            }
            for path in statistics.symbolicLinks { print(CacheCommand.skipped(path, "not counted")) }
            print(TerminalText.escaped("cache \(cache.directory)"))
            for namespace in DiskCache.Namespace.allCases {
                let entries = statistics.entries[namespace] ?? 0
                print("  \(namespace.rawValue): \(entries) entries, \(ByteCount(bytes: statistics.bytes[namespace] ?? 0))")
            }
            let percent = statistics.sizeLimit > 0 ? statistics.totalBytes * 100 / statistics.sizeLimit : 0
            print("  total: \(ByteCount(bytes: statistics.totalBytes)) of \(ByteCount(bytes: statistics.sizeLimit)) (\(percent)%)")
        }

        /// Objects and bytes per top-level folder of the store's prefix (`thumbnails`, …).
        private func printStatistics(of store: S3ObjectStore) async throws {
            var objects: [String: Int] = [:]
            var bytes: [String: Int] = [:]
            do {
                try await store.forEachObject { page in
                    for object in page {
                        let folder = String(object.key.prefix { $0 != "/" })
                        objects[folder, default: 0] += 1
                        bytes[folder, default: 0] += object.bytes
                    }
                }
            } catch {
                throw CommandFailure("cannot list the store: \(error)", exitCode: 1)
            }
            let folders = objects.keys.sorted()
            if location.json {
                var line = JSONLine()
                line.add("store", store.configuration.location)
                for folder in folders {
                    line.add("\(folder)Objects", objects[folder])
                    line.add("\(folder)Bytes", bytes[folder])
                }
                line.add("totalObjects", objects.values.reduce(0, +))
                line.add("totalBytes", bytes.values.reduce(0, +))
                print(line.text)
                return
            }
            print(TerminalText.escaped("store \(store.configuration.location)"))
            for folder in folders {
                print(TerminalText.escaped("  \(folder): \(objects[folder] ?? 0) objects, \(ByteCount(bytes: bytes[folder] ?? 0))"))
            }
            print("  total: \(objects.values.reduce(0, +)) objects, \(ByteCount(bytes: bytes.values.reduce(0, +)))")
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check every entry's checksum.",
            discussion: "Exit status 1 when any entry is damaged (after removing them, with --repair).")

        @OptionGroup var location: Location

        @Flag(help: "Remove the damaged entries.")
        var repair = false

        func validate() throws {
            try location.cache.validateUsable()
        }

        func run() throws {
            let report = try location.open().verify(repair: repair)
            if location.json {
                var line = JSONLine()
                line.add("checked", report.checked)
                line.add("damaged", report.damaged.map(\.path))
                line.add("repaired", report.repaired)
                line.add("symbolicLinks", report.symbolicLinks)
                print(line.text)
            } else {
                for path in report.symbolicLinks { print(CacheCommand.skipped(path, "not checked")) }
                for damaged in report.damaged { print(TerminalText.escaped("damaged: \(damaged.path): \(damaged.reason)")) }
                let action = report.repaired && !report.damaged.isEmpty ? ", removed" : ""
                print("\(report.checked) entries checked, \(report.damaged.count) damaged\(action)")
            }
            if !report.damaged.isEmpty { throw ExitCode.failure }
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove every entry.",
            discussion: "Anything else in the cache's folders (a folder, a file it did not write, a symbolic link, never followed) is left there and listed.")

        @OptionGroup var location: Location

        func validate() throws {
            try location.cache.validateUsable()
        }

        func run() throws {
            let cache = try location.open()
            let removal = try cache.removeAll()
            if location.json {
                var line = JSONLine()
                line.add("removedEntries", removal.entries)
                line.add("removedBytes", removal.bytes)
                line.add("foreign", removal.foreign)
                line.add("symbolicLinks", removal.symbolicLinks)
                print(line.text)
            } else {
                for path in removal.foreign { print(TerminalText.escaped("left \(path): not a cache entry")) }
                for path in removal.symbolicLinks { print(CacheCommand.skipped(path, "left")) }
                print(TerminalText.escaped("removed \(removal.entries) entries (\(ByteCount(bytes: removal.bytes))) from \(cache.directory)"))
            }
        }
    }
}
