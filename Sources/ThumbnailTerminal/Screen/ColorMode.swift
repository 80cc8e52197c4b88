/// How many colours the terminal can show.
package enum ColorMode: Sendable, Hashable {
    /// 24-bit colour (`ESC[38;2;r;g;bm`).
    case trueColor
    /// The xterm 256-colour palette (`ESC[38;5;nm`).
    case palette256

    /// True colour when `COLORTERM` says `truecolor` or `24bit`, else the palette.
    package static func detect(environment: [String: String]) -> ColorMode {
        let value = environment["COLORTERM"]?.lowercased()
        return value == "truecolor" || value == "24bit" ? .trueColor : .palette256
    }
}
