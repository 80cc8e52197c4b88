/// Where a warm-up stands, reported as it goes: for a progress bar.
public struct WarmProgress: Sendable, Hashable {
    /// Images finished (any outcome).
    public var done: Int
    /// Images in all.
    public var total: Int
    /// Body bytes received so far, in-flight transfers included.
    public var bytesReceived: Int
    /// Images failed so far.
    public var failures: Int

    package init(done: Int, total: Int, bytesReceived: Int, failures: Int) {
        self.done = done
        self.total = total
        self.bytesReceived = bytesReceived
        self.failures = failures
    }
}
