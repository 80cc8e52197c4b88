import Testing
@testable import ThumbnailTerminal

/// Detection driven by scripted terminal replies: what each kind of terminal
/// answers, and silence.
@Suite struct GraphicsDetectionTests {
    /// A terminal that answers with `chunks`, one per read, then stays silent;
    /// a clock that a silent read moves by the time it was given.
    final class ScriptedTerminal {
        var chunks: [String]
        var clock = ContinuousClock.now
        var reads = 0

        init(_ chunks: [String]) {
            self.chunks = chunks
        }

        func detect(timeout: Duration = .milliseconds(300)) -> (capabilities: TerminalCapabilities, other: [UInt8]) {
            GraphicsDetection.detect(timeout: timeout, now: { self.clock }) { remaining in
                self.reads += 1
                guard !self.chunks.isEmpty else {
                    self.clock += remaining
                    return []
                }
                self.clock += .milliseconds(5)
                return Array(self.chunks.removeFirst().utf8)
            }
        }
    }

    @Test func kittyAnswersItsGraphicsQueryTheCellSizeAndDA1() {
        let terminal = ScriptedTerminal(["\u{1B}_Gi=31;OK\u{1B}\\", "\u{1B}[6;20;10t", "\u{1B}[?62;22c"])
        let (capabilities, other) = terminal.detect()
        #expect(capabilities == TerminalCapabilities(kittyGraphics: true, sixel: false,
                                                     cellSize: CellPixelSize(width: 10, height: 20), answered: true))
        #expect(other.isEmpty)
        #expect(capabilities.resolve(.auto) == .kitty)
    }

    @Test func xtermAsAVT340SaysSixelInDA1() {
        let terminal = ScriptedTerminal(["\u{1B}[6;16;8t\u{1B}[?63;1;2;4;6;9;15;22c"])
        let (capabilities, _) = terminal.detect()
        #expect(capabilities.sixel && !capabilities.kittyGraphics && capabilities.answered)
        #expect(capabilities.cellSize == CellPixelSize(width: 8, height: 16))
        #expect(capabilities.resolve(.auto) == .sixel)
        #expect(terminal.reads == 1, "DA1 ends the wait")
    }

    @Test func aTerminalWithNeitherGetsHalfBlocksAtOnce() {
        let terminal = ScriptedTerminal(["\u{1B}[?1;2c"])
        let (capabilities, _) = terminal.detect()
        #expect(capabilities == TerminalCapabilities(answered: true))
        #expect(capabilities.resolve(.auto) == .blocks)
        #expect(capabilities.resolve(.sixel) == .sixel, "a protocol asked for is used as asked")
    }

    @Test func silenceEndsAtTheTimeoutWithHalfBlocks() {
        let terminal = ScriptedTerminal([])
        let started = terminal.clock
        let (capabilities, other) = terminal.detect(timeout: .milliseconds(200))
        #expect(!capabilities.answered && capabilities.resolve(.auto) == .blocks && other.isEmpty)
        #expect(terminal.clock - started == .milliseconds(200))
    }

    @Test func repliesSplitAcrossReadsAndKeysTypedMeanwhileAreToldApart() {
        let terminal = ScriptedTerminal(["j\u{1B}_Gi=31", ";OK\u{1B}\\k\u{1B}[A\u{1B}[6;1", "8;9t\u{1B}[?62;4c"])
        let (capabilities, other) = terminal.detect()
        #expect(capabilities.kittyGraphics && capabilities.sixel && capabilities.cellSize == CellPixelSize(width: 9, height: 18))
        #expect(String(decoding: other, as: UTF8.self) == "jk\u{1B}[A", "keys and an arrow go on to the key decoder")
    }

    @Test func withoutACellSizeAutoFallsBackToHalfBlocks() {
        let capabilities = TerminalCapabilities(kittyGraphics: true, sixel: true, cellSize: nil, answered: true)
        #expect(capabilities.resolve(.auto) == .blocks)
    }
}
