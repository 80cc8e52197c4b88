/// The fixed bounds on what reading a feed keeps, whatever the document: with them, memory follows what
/// one item keeps, never the size of the feed (its items go to the caller one at a time).
package enum FeedLimits {
    /// How deeply arrays and objects (JSON) or elements (XML) may nest. Feeds nest a handful of levels;
    /// 512 is also what Foundation's `JSONDecoder` allows. Deeper is an error.
    package static let maximumDepth = 512

    /// The most UTF-8 bytes kept of one string: a title, an image URL. A longer one keeps its first bytes
    /// and ends in “…”: a title is shown cut, and an image URL is refused, as longer than this. Browsers and
    /// servers stop at 8 KB or so, and no list shows a title that long.
    package static let maximumTextBytes = 16 << 10

    /// The most one item may keep of what is read for it (its titles, image URLs and attachments, about 16
    /// bytes a value more): an item holding more is an error, not kept whole. Items of real feeds keep
    /// under a kilobyte.
    package static let maximumItemBytes = 1 << 20

    /// The text of `utf8`, cut to at most `maximumTextBytes` UTF-8 bytes at a character boundary and
    /// ending in “…” when the text was longer (`wasLonger`).
    static func cut(_ utf8: [UInt8], wasLonger: Bool) -> String {
        guard wasLonger else { return String(decoding: utf8, as: UTF8.self) }
        var kept = utf8.prefix(maximumTextBytes)
        // Drop the last character, which the cut may have split: trailing continuation bytes (10xxxxxx)
        // and their lead byte.
        while let last = kept.last, last & 0b1100_0000 == 0b1000_0000 { kept.removeLast() }
        if let last = kept.last, last >= 0xC0 { kept.removeLast() }
        return String(decoding: kept, as: UTF8.self) + "…"
    }
}
