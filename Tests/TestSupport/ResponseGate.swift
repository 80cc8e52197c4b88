import Synchronization

/// Holds a response back until the test opens it: a slow server whose
/// slowness ends on the test's cue, not after a time that a loaded machine
/// may overrun. The test can also let held responses go one at a time.
public final class ResponseGate: Sendable {
    private let state = Mutex((isOpen: false, admissions: 0))

    public init() {}

    /// Lets every held response, and all later ones, go.
    public func open() {
        state.withLock { $0.isOpen = true }
    }

    /// Lets `count` more responses go, one each, while the gate stays closed to the rest.
    public func admit(_ count: Int = 1) {
        state.withLock { $0.admissions += count }
    }

    /// Whether a held response may go now; it takes one admission if the gate is not open.
    func pass() -> Bool {
        state.withLock { state in
            if state.isOpen { return true }
            guard state.admissions > 0 else { return false }
            state.admissions -= 1
            return true
        }
    }
}
