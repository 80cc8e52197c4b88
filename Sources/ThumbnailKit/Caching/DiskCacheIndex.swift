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
/// Journal: a first line `thumbnailer-journal <generation>`, then
/// `+ <id> <bytes on disk> <last used, ns>` and `- <id>` lines, where `<id>`
/// is `<namespace>/<sha256 hex>`.
struct DiskCacheIndex {
    struct Record {
        var bytes: Int
        var lastUsed: Int64
    }

    let journalPath: String
    private(set) var records: [String: Record] = [:]
    private(set) var totalBytes = 0
    private var generation: String?
    private var journalOffset = 0
    private var journalLines = 0

    init(journalPath: String) {
        self.journalPath = journalPath
    }

    /// Catches up with what other processes appended. Call holding the file lock.
    mutating func synchronize() throws {
        guard let header = try FileSystem.read(journalPath, from: 0, upTo: 64),
              let end = header.firstIndex(of: UInt8(ascii: "\n")),
              case let fields = header[..<end].split(separator: UInt8(ascii: " ")),
              fields.count == 2, fields[0].elementsEqual("thumbnailer-journal".utf8)
        else {
            // No journal, or not one this version wrote: start one from the directory's truth.
            throw DiskCacheIndex.Missing()
        }
        let current = String(decoding: fields[1], as: UTF8.self)
        if current != generation {
            reset(generation: current)
            journalOffset = end + 1
        }
        guard let tail = try FileSystem.read(journalPath, from: journalOffset, upTo: nil),
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

    /// Replaces everything with `records` and writes them as a fresh journal.
    /// Call holding the file lock.
    mutating func replaceAll(with records: [String: Record]) throws {
        let snapshot = journalPath + ".new"
        let newGeneration = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        var text = "thumbnailer-journal \(newGeneration)\n"
        for (id, record) in records { text += "+ \(id) \(record.bytes) \(record.lastUsed)\n" }
        try FileSystem.remove(snapshot)
        _ = try FileSystem.create(snapshot, with: Array(text.utf8), synchronize: false)
        try FileSystem.move(snapshot, to: journalPath)
        reset(generation: newGeneration)
        for (id, record) in records { set(id, record) }
        journalOffset = text.utf8.count
        journalLines = records.count
    }

    /// The least recently used entry, other than `excluded`.
    func oldest(excluding excluded: String) -> (id: String, record: Record)? {
        var oldest: (id: String, record: Record)?
        for (id, record) in records where id != excluded {
            if oldest.map({ record.lastUsed < $0.record.lastUsed }) ?? true { oldest = (id, record) }
        }
        return oldest
    }

    /// Rewrites the journal when it has grown well past the entries it describes.
    mutating func compactIfNeeded() throws {
        if journalLines > max(1024, 4 * records.count) { try replaceAll(with: records) }
    }

    private mutating func append(_ line: String) throws {
        // After synchronize every complete line is consumed, so bytes past the
        // offset can only be a line cut short by a killed writer: end it first.
        let size = FileSystem.status(journalPath).map { Int($0.st_size) } ?? 0
        let text = (size > journalOffset ? "\n" : "") + line
        try FileSystem.append(text, to: journalPath)
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
