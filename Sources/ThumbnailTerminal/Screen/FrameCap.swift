/// When to draw the next frame: at most one every ``interval``. A frame asked
/// for sooner is drawn when the interval is up, once however many requests
/// came in between, so the last change is always drawn and a burst of them
/// (a held key, a row's progress) costs one frame.
package struct FrameCap: Sendable {
    /// What to do about a request for a frame.
    package enum Decision: Sendable, Hashable {
        /// Draw now: the last frame is old enough.
        case drawNow
        /// Draw at this instant; nothing is scheduled yet.
        case drawAt(ContinuousClock.Instant)
        /// A frame is already scheduled and will show this change too.
        case alreadyScheduled
    }

    /// The shortest time between two frames. Default: 30 ms.
    package let interval: Duration
    private var lastDrawn: ContinuousClock.Instant?
    private var scheduled: ContinuousClock.Instant?

    package init(interval: Duration = .milliseconds(30)) {
        self.interval = interval
    }

    /// A frame is wanted at `now`.
    package mutating func request(at now: ContinuousClock.Instant) -> Decision {
        if scheduled != nil { return .alreadyScheduled }
        guard let lastDrawn, now - lastDrawn < interval else { return .drawNow }
        let due = lastDrawn + interval
        scheduled = due
        return .drawAt(due)
    }

    /// A frame was drawn at `now` (scheduled or not): it shows every change so far.
    package mutating func drawn(at now: ContinuousClock.Instant) {
        lastDrawn = now
        scheduled = nil
    }
}
