/// One of `count` slices of any list of images, chosen by the SHA-256 of each
/// image's URL (the digest its original is stored under): processes given
/// shards `0/n` to `n-1/n` split a feed between them with no coordination,
/// each image falling in exactly one slice, whatever order or machine they run on.
package struct WarmShard: Sendable, Hashable, CustomStringConvertible {
    /// Which slice, from 0 (a Kubernetes Indexed Job's `JOB_COMPLETION_INDEX`).
    package let index: Int
    /// How many slices.
    package let count: Int

    /// `nil` unless `0 <= index < count`.
    package init?(index: Int, count: Int) {
        guard count >= 1, (0..<count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// `"i/n"`, as `--shard` takes it; `nil` when malformed or out of range.
    package init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        self.init(index: index, count: count)
    }

    /// Every image: one slice of one.
    package static let all = WarmShard(index: 0, count: 1)!

    /// Whether `url` falls in this slice: the first 8 bytes of its digest, as a
    /// number, scaled to `count` slices of equal width.
    package func contains(_ url: String) -> Bool {
        let digest = SHA256.digest(Array(url.utf8))
        let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int(value.multipliedFullWidth(by: UInt64(count)).high) == index
    }

    package var description: String { "\(index)/\(count)" }
}
