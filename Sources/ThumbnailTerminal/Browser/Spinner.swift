/// A busy indicator in one cell: braille dots that turn one step per tick.
public struct Spinner: Sendable, Hashable {
    /// Every frame, in order.
    public static let frames = Array("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")

    /// Which frame shows now.
    public private(set) var frame = 0

    public init() {}

    /// The character showing now.
    public var symbol: Character { Self.frames[frame] }

    /// Turns one step.
    public mutating func advance() {
        frame = (frame + 1) % Self.frames.count
    }
}
