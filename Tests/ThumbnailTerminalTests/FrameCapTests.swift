import Testing
import ThumbnailTerminal

/// At most one frame per interval, and never a change left undrawn: instants
/// are made up, nothing waits.
@Suite struct FrameCapTests {
    let start = ContinuousClock.now

    func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    @Test func theFirstFrameIsDrawnAtOnce() {
        var cap = FrameCap()
        #expect(cap.request(at: at(0)) == .drawNow)
    }

    @Test func aRequestWithinTheIntervalIsDrawnWhenItIsUpOnceForABurst() {
        var cap = FrameCap(interval: .milliseconds(30))
        cap.drawn(at: at(0))
        #expect(cap.request(at: at(10)) == .drawAt(at(30)), "held back, not dropped")
        #expect(cap.request(at: at(12)) == .alreadyScheduled)
        #expect(cap.request(at: at(29)) == .alreadyScheduled, "a burst costs one frame")
        cap.drawn(at: at(30))
        #expect(cap.request(at: at(45)) == .drawAt(at(60)), "the next burst waits for the next interval")
    }

    @Test func aRequestOnceTheIntervalIsUpIsDrawnAtOnce() {
        var cap = FrameCap(interval: .milliseconds(30))
        cap.drawn(at: at(0))
        #expect(cap.request(at: at(30)) == .drawNow)
        cap.drawn(at: at(30))
        #expect(cap.request(at: at(100)) == .drawNow)
    }

    @Test func aFrameDrawnForAnotherReasonShowsWhatWasScheduled() {
        var cap = FrameCap(interval: .milliseconds(30))
        cap.drawn(at: at(0))
        #expect(cap.request(at: at(5)) == .drawAt(at(30)))
        cap.drawn(at: at(20))  // a resize draws at once
        #expect(cap.request(at: at(60)) == .drawNow, "nothing is left scheduled")
    }
}
