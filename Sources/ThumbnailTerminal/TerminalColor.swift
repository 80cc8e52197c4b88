/// A colour as a terminal draws it: 24-bit where the terminal supports it,
/// else the nearest of the 256-colour palette.
public struct TerminalColor: Sendable, Hashable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }
}
