import Synchronization

/// Holds a response back until the test opens it: a slow server whose
/// slowness ends on the test's cue, not after a time that a loaded machine
/// may overrun.
public final class ResponseGate: Sendable {
    private let isOpenNow = Mutex(false)

    public init() {}

    /// Lets every held response, and all later ones, go.
    public func open() {
        isOpenNow.withLock { $0 = true }
    }

    var isOpen: Bool { isOpenNow.withLock { $0 } }
}
