/// Brings the images a terminal shows from the last frame's to the next's,
/// writing only what changed: the graphics half of a frame, as
/// ``ScreenBuffer/render(changesFrom:mode:)`` is the text half. The text is
/// written first; its cells under the images are blank.
@MainActor public protocol ImageRenderer: AnyObject {
    /// What makes the terminal show `images` where it showed what the last call drew.
    /// - Parameter redrawn: the screen was cleared since (the first frame, a resize): nothing of the last images is left.
    func render(_ images: [ImagePlacement], redrawn: Bool) -> [UInt8]

    /// What takes every image off the terminal before the program leaves it.
    func finish() -> [UInt8]

    /// Bytes written so far, for the benchmark.
    var bytesWritten: Int { get }

    /// How its sequences reach the terminal; a tmux pane that moved changes it.
    var route: GraphicsRoute { get set }
}

/// The least recently used of a bounded set of keys.
struct RecencyOrder<Key: Hashable> {
    private var order: [Key] = []

    var count: Int { order.count }

    /// `key` is the most recently used now.
    mutating func touch(_ key: Key) {
        if let index = order.firstIndex(of: key) { order.remove(at: index) }
        order.append(key)
    }

    /// Removes and returns the least recently used key for which `evictable` holds.
    mutating func removeOldest(where evictable: (Key) -> Bool) -> Key? {
        guard let index = order.firstIndex(where: evictable) else { return nil }
        return order.remove(at: index)
    }
}
