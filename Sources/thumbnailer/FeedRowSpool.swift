import ThumbnailFeeds

/// Writes `browse`'s rows to two unlinked temporary files as the feed is parsed, item by item, for
/// ``FeedRows`` to read back by index: memory holds one 64 KiB buffer per file, never the list.
struct FeedRowSpool {
    private(set) var count = 0
    private let records: SpoolFile
    private let ends: SpoolFile
    private var recordBuffer: [UInt8] = []
    private var endBuffer: [UInt8] = []
    /// Bytes of records written and buffered: where the next row begins.
    private var recordsLength = 0

    /// Writes go out a piece of this size at a time: millions of tiny rows in thousands of writes.
    private static let pieceSize = 1 << 16

    /// - Throws: ``CommandFailure`` (exit status 2) when no temporary file can be made.
    init() throws {
        records = try SpoolFile()
        ends = try SpoolFile()
        recordBuffer.reserveCapacity(Self.pieceSize)
        endBuffer.reserveCapacity(Self.pieceSize)
    }

    /// Adds the row of `item`: its title, else the last path component of its first image's URL (percent-escapes
    /// and all), and that image. The parser has already cut both to its limits.
    mutating func add(_ item: FeedItem) throws {
        let url = item.imageURLs[0]
        let title = item.title ?? String(url.split(separator: "/").last ?? Substring(url))
        let titleBytes = Array(title.utf8)
        withUnsafeBytes(of: UInt32(titleBytes.count).littleEndian) { recordBuffer.append(contentsOf: $0) }
        recordBuffer.append(contentsOf: titleBytes)
        recordBuffer.append(contentsOf: url.utf8)
        recordsLength += 4 + titleBytes.count + url.utf8.count
        withUnsafeBytes(of: UInt64(recordsLength).littleEndian) { endBuffer.append(contentsOf: $0) }
        count += 1
        if recordBuffer.count >= Self.pieceSize { try Self.flush(&recordBuffer, to: records) }
        if endBuffer.count >= Self.pieceSize { try Self.flush(&endBuffer, to: ends) }
    }

    /// The rows written, readable by index, under the feed's `title`.
    consuming func finish(title: String?) throws -> FeedRows {
        try Self.flush(&recordBuffer, to: records)
        try Self.flush(&endBuffer, to: ends)
        return FeedRows(title: title, count: count, records: records, ends: ends)
    }

    private static func flush(_ buffer: inout [UInt8], to file: SpoolFile) throws {
        try buffer.withUnsafeBytes { try file.write($0) }
        buffer.removeAll(keepingCapacity: true)
    }
}
