import ThumbnailKit

/// One entry size of the disk benchmark, with the payload every entry of that size stores.
struct EntryKind {
    /// "20 KB", "2 MB" (decimal units, like the MB/s column).
    let label: String
    let size: Int
    /// Entries per run.
    let count: Int
    let namespace: DiskCache.Namespace
    /// Made once: the runs time the cache, not the making of bytes.
    let payload: [UInt8]

    init(label: String, size: Int, count: Int, namespace: DiskCache.Namespace) {
        self.label = label
        self.size = size
        self.count = count
        self.namespace = namespace
        // Pseudo-random, hence incompressible, like the JPEG and PNG bytes the cache really holds.
        var random = FastRandom(seed: UInt64(size))
        payload = (0..<size).map { _ in UInt8(truncatingIfNeeded: random.next() >> 56) }
    }

    /// An encoded thumbnail.
    static func thumbnail(_ settings: Settings) -> EntryKind {
        EntryKind(label: "20 KB", size: 20_000, count: settings.smallEntryCount, namespace: .thumbnails)
    }

    /// A downloaded original.
    static func original(_ settings: Settings) -> EntryKind {
        EntryKind(label: "2 MB", size: 2_000_000, count: settings.largeEntryCount, namespace: .originals)
    }

    /// A URL-like key, as the cache's callers use.
    func key(_ index: Int) -> String {
        "https://photos.example/\(size)/\(index).jpg"
    }
}

/// One row of the DiskCache table.
struct DiskRow {
    let operation: String
    let kind: EntryKind
    /// "no", "yes", or "n/a" for reads.
    let fsync: String
    let measurement: Measurement
}

/// Times DiskCache writes and reads, each run in a fresh cache directory under `root`.
struct DiskBenchmark {
    let root: String
    let settings: Settings

    /// A size limit far above anything a run writes, so the write rows never
    /// evict (each run checks that every entry is still there).
    private static let noEvictionLimit = 1 << 40
    /// The eviction row: a limit that holds this many 20 KB entries...
    private static let evictionCapacity = 50
    /// ...and this many written to it.
    private static let evictionWrites = 500

    /// Every row: for each entry size, writes without and with fsync and warm
    /// reads; then 20 KB writes into a cache that must evict.
    func rows() throws -> [DiskRow] {
        var rows: [DiskRow] = []
        func add(_ row: DiskRow) {
            rows.append(row)
            progress("  DiskCache \(row.operation), \(row.kind.label), fsync \(row.fsync): "
                + "\(rate(row.measurement.rate)) entries/s")
        }
        for kind in [EntryKind.thumbnail(settings), EntryKind.original(settings)] {
            for synchronizes in [false, true] {
                add(DiskRow(operation: "write", kind: kind, fsync: synchronizes ? "yes" : "no",
                            measurement: try writes(kind, synchronizes: synchronizes)))
            }
            add(DiskRow(operation: "read (hits, warm)", kind: kind, fsync: "n/a", measurement: try reads(kind)))
        }
        add(try evictingWrites())
        return rows
    }

    /// Stores `kind.count` new entries per run into an empty cache.
    private func writes(_ kind: EntryKind, synchronizes: Bool) throws -> Measurement {
        var durations: [Duration] = []
        for run in 0..<settings.runs {
            let name = "write-\(kind.size)-\(synchronizes ? "fsync" : "nosync")-\(run)"
            try withCache(name, sizeLimit: Self.noEvictionLimit, synchronizes: synchronizes) { cache in
                durations.append(try time { try store(kind, count: kind.count, in: cache) })
                let stored = try cache.statistics().totalEntries
                guard stored == kind.count else {
                    throw BenchmarkError(description: "DiskCache \(name): \(stored) entries after \(kind.count) writes")
                }
            }
        }
        return Measurement(work: kind.count, durations: durations)
    }

    /// Stores `kind.count` entries (untimed), then reads every one back once per run.
    private func reads(_ kind: EntryKind) throws -> Measurement {
        try withCache("read-\(kind.size)", sizeLimit: Self.noEvictionLimit, synchronizes: false) { cache in
            try store(kind, count: kind.count, in: cache)
            var durations: [Duration] = []
            for _ in 0..<settings.runs {
                durations.append(try time { try readAll(kind, from: cache) })
            }
            return Measurement(work: kind.count, durations: durations)
        }
    }

    /// Writes ``evictionWrites`` 20 KB entries into a cache whose limit holds
    /// ``evictionCapacity``: from the 51st on, each write first evicts the oldest.
    private func evictingWrites() throws -> DiskRow {
        let kind = EntryKind.thumbnail(settings)
        let limit = try onDiskSize(of: kind) * Self.evictionCapacity
        var durations: [Duration] = []
        var kept = 0
        for run in 0..<settings.runs {
            try withCache("evict-\(run)", sizeLimit: limit, synchronizes: false) { cache in
                durations.append(try time { try store(kind, count: Self.evictionWrites, in: cache) })
                let statistics = try cache.statistics()
                kept = statistics.totalEntries
                guard statistics.totalBytes <= limit, (1...Self.evictionCapacity).contains(kept) else {
                    throw BenchmarkError(description: """
                        DiskCache with a limit of \(limit) bytes holds \(kept) entries, \
                        \(statistics.totalBytes) bytes after \(Self.evictionWrites) writes
                        """)
                }
            }
        }
        return DiskRow(operation: "write with eviction (\(Self.evictionWrites) written, limit holds \(kept))",
                       kind: kind, fsync: "no", measurement: Measurement(work: Self.evictionWrites, durations: durations))
    }

    /// The bytes one entry of `kind` occupies on disk, as the cache counts them
    /// against its limit (whole blocks, plus the header and metadata).
    private func onDiskSize(of kind: EntryKind) throws -> Int {
        try withCache("probe", sizeLimit: Self.noEvictionLimit, synchronizes: false) { cache in
            try store(kind, count: 1, in: cache)
            return try cache.statistics().totalBytes
        }
    }

    /// Runs `body` on a cache in a new directory `root/name`, removed afterwards
    /// so the disk holds one run's entries at a time. (After a failure, the
    /// caller removes `root` with everything in it.)
    private func withCache<Result>(_ name: String, sizeLimit: Int, synchronizes: Bool,
                                   _ body: (DiskCache) throws -> Result) throws -> Result {
        let directory = "\(root)/\(name)"
        let cache = try DiskCache(directory: directory, sizeLimit: sizeLimit, synchronizesWrites: synchronizes)
        let result = try body(cache)
        try removeTree(directory)
        return result
    }

    /// Stores entries `0..<count` of `kind`.
    private func store(_ kind: EntryKind, count: Int, in cache: DiskCache) throws {
        for index in 0..<count {
            let key = kind.key(index)
            try cache.store(kind.payload, forKey: key, in: kind.namespace,
                            metadata: DiskCacheMetadata(url: key, contentType: "image/jpeg"))
        }
    }

    /// Reads entries `0..<kind.count` of `kind`, each of which must be there, whole.
    private func readAll(_ kind: EntryKind, from cache: DiskCache) throws {
        for index in 0..<kind.count {
            guard let entry = try cache.entry(forKey: kind.key(index), in: kind.namespace) else {
                throw BenchmarkError(description: "DiskCache miss for \(kind.key(index)), which was stored")
            }
            guard entry.bytes.count == kind.size else {
                throw BenchmarkError(description: "DiskCache entry \(kind.key(index)) has \(entry.bytes.count) bytes")
            }
        }
    }
}

extension DiskRow {
    /// The DiskCache table of the report.
    static func table(_ rows: [DiskRow]) -> MarkdownTable {
        var table = MarkdownTable([
            ("Operation", .left), ("Entry", .right), ("fsync", .left), ("Entries/run", .right),
            ("Entries/s", .right), ("MB/s", .right), ("µs/entry", .right), ("Spread", .right),
        ])
        for row in rows {
            let measurement = row.measurement
            table.append([
                row.operation, row.kind.label, row.fsync, grouped(measurement.work),
                rate(measurement.rate), decimal(measurement.rate * Double(row.kind.size) / 1e6, places: 1),
                decimal(measurement.nanosecondsPerUnit / 1e3, places: 1), percent(measurement.spread),
            ])
        }
        return table
    }
}
