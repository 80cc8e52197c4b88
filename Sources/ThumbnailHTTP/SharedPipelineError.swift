/// Why ``ThumbnailKit/ThumbnailPipeline/configureShared(_:)`` did not change the shared
/// pipeline: it is set once, before anything uses it.
public enum SharedPipelineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// ``ThumbnailKit/ThumbnailPipeline/shared`` was used already: its callers hold that
    /// pipeline, and a second one would split the memory cache and the limits.
    case alreadyInUse
    /// It was configured already, by another part of the app: the first
    /// configuration stands.
    case alreadyConfigured

    public var description: String {
        switch self {
        case .alreadyInUse:
            "the shared pipeline is in use already; configure it before the first use of ThumbnailPipeline.shared"
        case .alreadyConfigured:
            "the shared pipeline was configured already; it is configured once"
        }
    }
}
