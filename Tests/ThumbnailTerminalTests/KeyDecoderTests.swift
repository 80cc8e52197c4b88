import Testing
@testable import ThumbnailTerminal

/// Raw terminal bytes to keys.
@Suite struct KeyDecoderTests {
    func keys(_ text: String) -> [Key] {
        var decoder = KeyDecoder()
        return decoder.decode(Array(text.utf8))
    }

    @Test func lettersAndControlKeys() {
        #expect(keys("jkgGr q") == [.down, .up, .top, .bottom, .retry, .pageDown, .quit])
        #expect(keys("\u{03}") == [.quit], "Ctrl-C")
    }

    @Test func arrowsPagesHomeAndEnd() {
        #expect(keys("\u{1B}[A\u{1B}[B\u{1B}OA\u{1B}OB") == [.up, .down, .up, .down])
        #expect(keys("\u{1B}[5~\u{1B}[6~") == [.pageUp, .pageDown])
        #expect(keys("\u{1B}[H\u{1B}[F\u{1B}[1~\u{1B}[4~") == [.top, .bottom, .top, .bottom])
    }

    @Test func aSequenceSplitAcrossReadsIsKeptUntilComplete() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B]) == [])
        #expect(decoder.decode(Array("[".utf8)) == [])
        #expect(decoder.decode(Array("6~j".utf8)) == [.pageDown, .down])
    }

    @Test func unknownSequencesAreDroppedWhole() {
        #expect(keys("\u{1B}[15~j\u{1B}[1;5Ck") == [.down, .up], "F5 and Ctrl-Right leak nothing")
    }

    /// A kitty graphics reply that arrives after detection gave up reads "Gi=31;OK": `G` would jump to the bottom.
    @Test func stringsTheTerminalSendsAreDroppedWholeEvenSplitAcrossReads() {
        #expect(keys("\u{1B}_Gi=31;OK\u{1B}\\j\u{1B}]11;rgb:0000/0000/0000\u{07}k\u{1B}Pq#0;2;0;0;0\u{1B}\\g") == [.down, .up, .top])
        var decoder = KeyDecoder()
        #expect(decoder.decode(Array("\u{1B}_Gi=3".utf8)) == [])
        #expect(decoder.decode(Array("1;OK\u{1B}".utf8)) == [])
        #expect(decoder.decode(Array("\\j".utf8)) == [.down])
    }

    @Test func aLoneEscapeIsDroppedWhenFlushed() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B]) == [])
        #expect(decoder.flushPendingEscape() == [])
        #expect(decoder.decode(Array("k".utf8)) == [.up])
    }

    /// Found by `scripts/fuzz.sh keys`, whose rate fell from 1,600 to 75 inputs a second as they grew:
    /// the bytes of a sequence not ended yet were kept and searched again on every read, so a long
    /// string (a clipboard reply) or an endless control sequence cost memory without bound and time
    /// with its square.
    @Test(arguments: [("\u{1B}]52;c;", "A", "\u{07}"), ("\u{1B}_G", "x", "\u{1B}\\"), ("\u{1B}[", "1;", "A")])
    func aSequenceThatGoesOnIsDroppedAsItComesNotKept(start: String, filler: String, end: String) {
        var decoder = KeyDecoder()
        var keys = decoder.decode(Array(("j" + start).utf8))
        let read = Array(String(repeating: filler, count: 4096 / filler.utf8.count).utf8)
        for _ in 0..<256 {
            keys += decoder.decode(read)
            #expect(decoder.heldByteCount <= KeyDecoder.longestSequence)
            if decoder.heldByteCount > KeyDecoder.longestSequence { break }
        }
        keys += decoder.decode(Array((end + "k").utf8))
        #expect(keys == [.down, .up], "1 MiB inside the sequence, then its end: nothing of it read as keys")
    }
}

/// A timer that flushes the decoder (the browser's 80 ms tick) can fall between two reads of one
/// escape sequence: only an escape whose rest has not come for ``KeyDecoder/escapeTimeout`` is flushed.
/// Before, every tick flushed, so an arrow split across reads at a tick became a dropped escape and
/// the keys `[` and `B`. The reads and ticks are given their instants; nothing sleeps.
@Suite struct KeyDecoderTimeoutTests {
    let start = ContinuousClock.now

    func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    @Test func anArrowSplitAcrossReadsWithATickBetweenIsOneKey() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B], at: at(0)) == [])
        #expect(decoder.flushPendingEscape(at: at(79)) == [], "a tick within the timeout keeps the escape")
        #expect(decoder.decode(Array("[B".utf8), at: at(81)) == [.down])
    }

    @Test func aTickJustBeforeTheTimeoutAfterTheLastByteKeepsTheSequence() {
        var decoder = KeyDecoder()
        #expect(decoder.decode(Array("\u{1B}[".utf8), at: at(0)) == [])
        #expect(decoder.flushPendingEscape(at: at(0) + KeyDecoder.escapeTimeout - .milliseconds(1)) == [])
        #expect(decoder.decode(Array("6~".utf8), at: at(120)) == [.pageDown])
    }

    @Test func aLoneEscapeIsFlushedOnceTheTimeoutHasPassed() {
        var decoder = KeyDecoder()
        #expect(decoder.decode(Array("j\u{1B}".utf8), at: at(0)) == [.down])
        #expect(decoder.flushPendingEscape(at: at(0) + KeyDecoder.escapeTimeout) == [])
        // The escape is gone: what comes next is read on its own, not as the rest of a sequence.
        #expect(decoder.decode(Array("[B".utf8), at: at(500)) == [.character("["), .character("B")])
    }

    /// A terminal's reply trickling in over several ticks is still dropped whole: "G" would jump to the bottom.
    @Test func aStringStillComingAcrossTicksIsNotLeakedAsKeys() {
        var decoder = KeyDecoder()
        var keys = decoder.decode(Array("\u{1B}_Gi=3".utf8), at: at(0))
        keys += decoder.flushPendingEscape(at: at(80))
        keys += decoder.decode(Array("1;O".utf8), at: at(90))
        keys += decoder.flushPendingEscape(at: at(160))
        keys += decoder.decode(Array("K\u{1B}\\k".utf8), at: at(170))
        #expect(keys == [.up])
    }
}
