/// Which URLs were seen lately: the last ``capacity`` distinct ones, as 64-bit hashes in a ring.
///
/// A feed names each image once or nearly so, repeats sitting close (an item's image and banner, an item
/// listed twice in a row), while keeping every URL of a feed of millions would cost tens of megabytes
/// even as hashes. So `warm` skips a repeat seen within the last 65 536 images; one further back is
/// warmed again, and then found cached (a look at the disk, no download), or fails once more. Two
/// different URLs share a hash with odds of about 1 in 2^64 per pair, 1 in 10^8 for all 4 million images
/// of a 32 MB feed against the window: the second would be skipped.
struct RecentURLs {
    /// How many URLs are remembered: 1.5 MB or so.
    static let capacity = 1 << 16

    private var ring: [Int] = []
    private var next = 0
    private var members = Set<Int>()

    /// Whether `url` is new: not among the last ``capacity`` URLs inserted, to which it is then added.
    mutating func insert(_ url: String) -> Bool {
        var hasher = Hasher()
        hasher.combine(url)
        let hash = hasher.finalize()
        guard members.insert(hash).inserted else { return false }
        if ring.count < Self.capacity {
            ring.append(hash)
        } else {
            members.remove(ring[next])
            ring[next] = hash
            next = (next + 1) % Self.capacity
        }
        return true
    }
}
