/// A busy indicator in one cell: braille dots that turn one step per tick.
package struct Spinner: Sendable, Hashable {
    /// Every frame, in order.
    package static let frames = Array("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")

    /// Which frame shows now.
    package private(set) var frame = 0

    package init() {}

    /// The character showing now.
    package var symbol: Character { Self.frames[frame] }

    /// Turns one step.
    package mutating func advance() {
        frame = (frame + 1) % Self.frames.count
    }
}
