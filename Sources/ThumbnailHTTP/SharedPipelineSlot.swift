import Synchronization

/// What ``ThumbnailPipeline/shared`` holds: nothing yet, a configured
/// pipeline nobody has used, or the pipeline in use, which never changes.
/// An instance of its own per test; the process has one, behind `shared`.
final class SharedPipelineSlot: Sendable {
    private enum State {
        case empty
        case configured(ThumbnailPipeline)
        case inUse(ThumbnailPipeline)
    }

    private let state = Mutex(State.empty)
    /// The configuration used when nobody configured one; may throw, as `.web()` does.
    private let makeDefault: @Sendable () throws -> ThumbnailPipeline.Configuration

    init(default makeDefault: @escaping @Sendable () throws -> ThumbnailPipeline.Configuration) {
        self.makeDefault = makeDefault
    }

    /// Sets the pipeline every use will get.
    /// - Throws: ``SharedPipelineError`` when it is in use or configured already; it is left as it was.
    func configure(_ configuration: ThumbnailPipeline.Configuration) throws(SharedPipelineError) {
        try state.withLock { (state: inout State) throws(SharedPipelineError) in
            switch state {
            case .empty: state = .configured(ThumbnailPipeline(configuration: configuration))
            case .configured: throw .alreadyConfigured
            case .inUse: throw .alreadyInUse
            }
        }
    }

    /// The pipeline in use: the configured one, else the default made now.
    /// The first call that returns fixes it for good.
    /// - Throws: what the default configuration threw; nothing is fixed then,
    ///   so a later call tries again and ``configure(_:)`` may still be called.
    func pipeline() throws -> ThumbnailPipeline {
        // The default is made under the lock: two first uses at once must not open two disk caches.
        try state.withLock { state in
            switch state {
            case .inUse(let pipeline):
                return pipeline
            case .configured(let pipeline):
                state = .inUse(pipeline)
                return pipeline
            case .empty:
                let pipeline = ThumbnailPipeline(configuration: try makeDefault())
                state = .inUse(pipeline)
                return pipeline
            }
        }
    }
}
