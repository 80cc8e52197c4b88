import Testing
import ThumbnailTerminal

/// 24-bit and 256-colour sequences, and the nearest palette colour.
@Suite struct TerminalColorTests {
    @Test func trueColourSequencesCarryTheComponents() {
        let color = TerminalColor(red: 1, green: 2, blue: 3)
        #expect(color.foregroundSequence(.trueColor) == "\u{1B}[38;2;1;2;3m")
        #expect(color.backgroundSequence(.trueColor) == "\u{1B}[48;2;1;2;3m")
    }

    @Test(arguments: [
        (TerminalColor(red: 0, green: 0, blue: 0), UInt8(16)),
        (TerminalColor(red: 255, green: 255, blue: 255), UInt8(231)),
        (TerminalColor(red: 255, green: 0, blue: 0), UInt8(196)),
        (TerminalColor(red: 95, green: 135, blue: 175), UInt8(67)),
        (TerminalColor(red: 128, green: 128, blue: 128), UInt8(244)),
    ])
    func theNearestPaletteColourIsChosen(color: TerminalColor, index: UInt8) {
        #expect(color.paletteIndex() == index)
        #expect(color.foregroundSequence(.palette256) == "\u{1B}[38;5;\(index)m")
    }

    @Test func colourModeFollowsCOLORTERM() {
        #expect(ColorMode.detect(environment: ["COLORTERM": "truecolor"]) == .trueColor)
        #expect(ColorMode.detect(environment: ["COLORTERM": "24BIT"]) == .trueColor)
        #expect(ColorMode.detect(environment: ["COLORTERM": "yes"]) == .palette256)
        #expect(ColorMode.detect(environment: [:]) == .palette256)
    }
}
