import Testing
import ThumbnailTerminal

@Suite struct TerminalColorTests {
    @Test func aColourKeepsItsComponents() {
        let color = TerminalColor(red: 1, green: 2, blue: 3)
        #expect([color.red, color.green, color.blue] == [1, 2, 3])
    }
}
