/// How far a load has come, for a progress display: a percentage, a message
/// ("retrying in 0.5 s"), or the news that it was cancelled.
public struct LoadingProgress: Sendable, Hashable {
    /// The load was cancelled; a view shows that instead of a spinner.
    public let isCanceled: Bool
    /// A line to show beside the spinner.
    public let message: String?
    /// 0…100, clamped on construction; `nil` when the total is unknown.
    public let percent: Int?

    /// Progress with the given parts; each defaults to absent.
    /// - Parameters:
    ///   - isCanceled: The load was cancelled. Default: `false`.
    ///   - message: A line to show beside the spinner. Default: `nil`.
    ///   - percent: How far the load has come, clamped to 0…100. Default: `nil`, unknown.
    public init(isCanceled: Bool = false, message: String? = nil, percent: Int? = nil) {
        self.isCanceled = isCanceled
        self.message = message
        self.percent = percent.map { min(100, max(0, $0)) }
    }

    /// A cancelled load.
    public static let canceled = LoadingProgress(isCanceled: true)
}

extension LoadingProgress {
    /// What a pipeline request is doing, as progress: percent while bytes
    /// arrive (rounded down, so 100 means every byte is here), the retry
    /// message while a retry waits, "decoding" at 100 once decoding.
    public init(_ progress: ThumbnailProgress) {
        switch progress {
        case .fetching:
            self.init(percent: progress.percent.map { Int($0) })
        case .retrying:
            self.init(message: progress.message)
        case .decoding:
            self.init(message: "decoding", percent: 100)
        }
    }
}
