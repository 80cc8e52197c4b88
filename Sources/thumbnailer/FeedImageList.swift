import ThumbnailFeeds
import ThumbnailKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `warm` takes from a feed, gathered item by item as the feed is parsed: counts, the images it may
/// not fetch, and the URLs of its shard, kept on disk one a line. Memory holds none of the list, so a
/// feed of millions of images warms in the memory of one.
///
/// A URL repeated within ``RecentURLs/capacity`` images is counted and warmed once.
struct FeedImageList {
    /// The feed's format and title, once it is read.
    var outline = FeedOutline(format: .plainJSON)
    let shard: WarmShard
    /// Items with an image.
    private(set) var items = 0
    /// The feed's images, its refused ones included.
    private(set) var images = 0
    /// The shard's images that may be fetched, in `urls`.
    private(set) var count = 0
    /// The shard's images the feed names but may not be fetched (a web feed pointing at local files).
    private(set) var refusedCount = 0
    /// The first ``keptRefusals`` of them, with the reason.
    private(set) var refused: [RefusedImage] = []
    private var seen = RecentURLs()
    private let spool: SpoolFile

    /// How many refusals ``refused`` lists, as the summary lists at most that many failures.
    static let keptRefusals = WarmReport.keptFailures

    init(shard: WarmShard) throws {
        self.shard = shard
        spool = try SpoolFile()
    }

    mutating func add(_ item: FeedItem) throws {
        items += 1
        for url in item.imageURLs where seen.insert(url) {
            images += 1
            guard shard.contains(url) else { continue }
            count += 1
            try Array((url + "\n").utf8).withUnsafeBytes { try spool.write($0) }
        }
    }

    mutating func refuse(_ image: RefusedImage) {
        guard seen.insert(image.url) else { return }
        images += 1
        guard shard.contains(image.url) else { return }
        refusedCount += 1
        if refused.count < Self.keptRefusals { refused.append(image) }
    }

    /// The shard's URLs that may be fetched, in feed order, read back from disk as they are taken.
    var urls: SpooledLines { SpooledLines(file: spool) }
}

/// The lines of a ``SpoolFile``, read a piece at a time.
struct SpooledLines: Sequence {
    let file: SpoolFile

    struct Iterator: IteratorProtocol {
        let file: SpoolFile
        private var offset = 0
        private var buffer: [UInt8] = []
        private var position = 0

        init(file: SpoolFile) {
            self.file = file
        }

        mutating func next() -> String? {
            var line: [UInt8] = []
            while true {
                if position == buffer.count {
                    guard refill() else { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
                }
                if let end = buffer[position...].firstIndex(of: UInt8(ascii: "\n")) {
                    line += buffer[position..<end]
                    position = end + 1
                    return String(decoding: line, as: UTF8.self)
                }
                line += buffer[position...]
                position = buffer.count
            }
        }

        /// Reads the next piece; `false` at the end (or should the file not read back, which ends the list).
        private mutating func refill() -> Bool {
            let size = Swift.min(1 << 16, file.count - offset)
            guard size > 0 else { return false }
            guard let piece = try? file.read(count: size, at: offset) else { return false }
            buffer = piece
            offset += size
            position = 0
            return true
        }
    }

    func makeIterator() -> Iterator { Iterator(file: file) }
}
