/// The disk cache's record of its entries, shared by every process that uses
/// the directory through an append-only journal.
///
/// Each process keeps the records in memory and, holding the directory's
/// file lock, first replays what other processes appended since its last
/// look, then appends its own changes. A journal that grows past a few
/// times the number of entries is rewritten as a snapshot (a new file,
/// renamed into place) with a new random generation in its first line;
/// other processes notice the new generation and reload. (Not the inode:
/// a file system may hand the old number to the new file.) A line cut short
/// by a killed process is skipped, and the next appender terminates it first.
///
/// The journal never stands in the way of the cache: when the file system has
/// no room for a journal line or a snapshot (`ENOSPC`, `EDQUOT`, `EFBIG`), the
/// journal is removed and the records are this process's alone until a
/// snapshot can be written again. Every process then rebuilds its records
/// from the directory, which holds the truth, at its next change (it finds no
/// journal). A line the file system took only in part goes with the journal,
/// so no process reads half of it.
///
/// Journal: a first line `thumbnailer-journal <generation>`, then
/// `+ <id> <bytes on disk> <last used, ns>` and `- <id>` lines, where `<id>`
/// is `<namespace>/<sha256 hex>`. The journal and its snapshot are reached
/// from the cache's open directory and never through a symbolic link: a link
/// standing at `journal` is read as no journal and replaced by the next snapshot.
struct DiskCacheIndex {
    /// The journal's first word: marks a directory as a cache of ours.
    static let header = "thumbnailer-journal"

    struct Record {
        var bytes: Int
        var lastUsed: Int64
    }

    /// The cache directory, open (its owner's descriptor).
    private let directory: Int32
    let journalPath: String
    private(set) var records: [String: Record] = [:]
    private(set) var totalBytes = 0
    /// The journal's generation; `nil` when there is no journal (see above).
    private var generation: String?
    private var journalOffset = 0
    private var journalLines = 0

    init(directory: Int32, path: String) {
        self.directory = directory
        journalPath = "\(path)/\(Self.journalName)"
    }

    private static let journalName = "journal", snapshotName = "journal.new"

    private func readJournal(from start: Int, upTo limit: Int?) throws -> [UInt8]? {
        try FileSystem.read(Self.journalName, in: directory, from: start, upTo: limit, path: journalPath)
    }

    /// Catches up with what other processes appended. Call holding the file lock.
    mutating func synchronize() throws {
        guard let header = try readJournal(from: 0, upTo: 64),
              let end = header.firstIndex(of: UInt8(ascii: "\n")),
              case let fields = header[..<end].split(separator: UInt8(ascii: " ")),
              fields.count == 2, fields[0].elementsEqual(Self.header.utf8)
        else {
            // No journal, or not one this version wrote: start one from the directory's truth.
            throw DiskCacheIndex.Missing()
        }
        let current = String(decoding: fields[1], as: UTF8.self)
        if current != generation {
            reset(generation: current)
            journalOffset = end + 1
        }
        guard let tail = try readJournal(from: journalOffset, upTo: nil),
              let lastNewline = tail.lastIndex(of: UInt8(ascii: "\n"))
        else { return }
        for line in tail[...lastNewline].split(separator: UInt8(ascii: "\n")) {
            apply(String(decoding: line, as: UTF8.self))
            journalLines += 1
        }
        journalOffset += lastNewline + 1
    }

    /// The journal is missing or unreadable as a journal: rebuild it.
    struct Missing: Error {}

    /// Records a new or replaced entry. Call holding the file lock, after `synchronize`.
    mutating func add(_ id: String, bytes: Int, lastUsed: Int64) throws {
        try append("+ \(id) \(bytes) \(lastUsed)\n")
        set(id, Record(bytes: bytes, lastUsed: lastUsed))
    }

    /// Records a removal. Call holding the file lock, after `synchronize`.
    mutating func remove(_ id: String) throws {
        guard records[id] != nil else { return }
        try append("- \(id)\n")
        set(id, nil)
    }

    /// Notes a read in this process (other processes see the file's new modification time).
    mutating func markUsed(_ id: String, at time: Int64) {
        records[id]?.lastUsed = time
    }

    /// Replaces everything with `records` and writes them as a fresh journal,
    /// or, when the file system has no room for it, goes on without one.
    /// Call holding the file lock.
    mutating func replaceAll(with records: [String: Record]) throws {
        let snapshot = journalPath + ".new"
        let newGeneration = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        var text = "\(Self.header) \(newGeneration)\n"
        for (id, record) in records { text += "+ \(id) \(record.bytes) \(record.lastUsed)\n" }
        var written = true
        do {
            try FileSystem.remove(Self.snapshotName, in: directory, path: snapshot)
            _ = try FileSystem.create(Self.snapshotName, in: directory, path: snapshot, with: Array(text.utf8),
                                      synchronize: false)
            try FileSystem.move(Self.snapshotName, in: directory, to: Self.journalName, in: directory, path: snapshot)
        } catch where StorageShortage(error) != nil {
            try dropJournal()
            written = false
        }
        reset(generation: written ? newGeneration : nil)
        for (id, record) in records { set(id, record) }
        journalOffset = written ? text.utf8.count : 0
        journalLines = written ? records.count : 0
    }

    /// Removes the journal, which can no longer follow the directory.
    private mutating func dropJournal() throws {
        try FileSystem.remove(Self.journalName, in: directory, path: journalPath)
        generation = nil
    }

    /// The least recently used entry, other than those `excluded`.
    func oldest(excluding excluded: Set<String>) -> (id: String, record: Record)? {
        var oldest: (id: String, record: Record)?
        for (id, record) in records where !excluded.contains(id) {
            if oldest.map({ record.lastUsed < $0.record.lastUsed }) ?? true { oldest = (id, record) }
        }
        return oldest
    }

    /// Rewrites the journal when it has grown well past the entries it describes.
    mutating func compactIfNeeded() throws {
        if generation != nil, journalLines > max(1024, 4 * records.count) { try replaceAll(with: records) }
    }

    /// Journals `line`; without a journal, or without room for the line, the
    /// directory alone records the change (see above).
    private mutating func append(_ line: String) throws {
        guard generation != nil else { return }
        // After synchronize every complete line is consumed, so bytes past the
        // offset can only be a line cut short by a killed writer: end it first.
        let size = FileSystem.status(Self.journalName, in: directory).map { Int($0.st_size) } ?? 0
        let text = (size > journalOffset ? "\n" : "") + line
        do {
            try FileSystem.append(text, toFile: Self.journalName, in: directory, path: journalPath)
        } catch where StorageShortage(error) != nil {
            try dropJournal()
            return
        }
        journalOffset = size + text.utf8.count
        journalLines += 1
    }

    private mutating func apply(_ line: String) {
        let fields = line.split(separator: " ")
        switch (fields.first, fields.count) {
        case ("+", 4):
            guard let bytes = Int(fields[2]), let lastUsed = Int64(fields[3]), bytes >= 0 else { return }
            set(String(fields[1]), Record(bytes: bytes, lastUsed: lastUsed))
        case ("-", 2):
            set(String(fields[1]), nil)
        default:
            break  // a torn line from a killed writer
        }
    }

    private mutating func set(_ id: String, _ record: Record?) {
        totalBytes -= records[id]?.bytes ?? 0
        records[id] = record
        totalBytes += record?.bytes ?? 0
    }

    private mutating func reset(generation: String?) {
        records = [:]
        totalBytes = 0
        self.generation = generation
        journalOffset = 0
        journalLines = 0
    }
}
