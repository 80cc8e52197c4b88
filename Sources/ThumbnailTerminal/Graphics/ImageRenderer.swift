/// Brings the images a terminal shows from the last frame's to the next's,
/// writing only what changed: the graphics half of a frame, as
/// ``ScreenBuffer/render(changesFrom:mode:)`` is the text half. The text is
/// written first; its cells under the images are blank.
@MainActor package protocol ImageRenderer: AnyObject {
    /// What makes the terminal show `images` where it showed what the last call drew.
    /// - Parameter redrawn: the screen was cleared since (the first frame, a resize): nothing of the last images is left.
    func render(_ images: [ImagePlacement], redrawn: Bool) -> [UInt8]

    /// The terminal moved `lines` up by `distance` (down when negative), and the images on them
    /// with them (``ScrollingLines``): what it shows there moved too. An image the move cut, part
    /// of it left, is taken off.
    /// - Returns: what takes those cut images off.
    func scroll(by distance: Int, lines: Range<Int>) -> [UInt8]

    /// What takes every image off the terminal before the program leaves it.
    func finish() -> [UInt8]

    /// How its sequences reach the terminal; a tmux pane that moved changes it.
    var route: GraphicsRoute { get set }
}

extension ImagePlacement {
    /// Where this image is after `lines` scrolled by `distance`: `.kept` when it was elsewhere,
    /// `.moved` when it moved whole, `.cut` (at its new place) when part of it left the lines.
    func scrolled(by distance: Int, lines: Range<Int>) -> ScrollOutcome {
        guard lines.contains(row) else { return .kept }
        let moved = moved(byRows: -distance)
        return lines.contains(moved.row) && moved.row + moved.rows <= lines.upperBound ? .moved(moved) : .cut(moved)
    }

    enum ScrollOutcome {
        case kept
        case moved(ImagePlacement)
        case cut(ImagePlacement)
    }
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
