import ThumbnailKit

extension ThumbnailError {
    /// Whether `error` is a ``ThumbnailError`` of `kind` around exactly `underlying`: what a test
    /// expects the pipeline to throw, with the detailed error still reachable.
    static func matches<Underlying: Error & Equatable>(_ error: any Error, _ kind: Kind, _ underlying: Underlying) -> Bool {
        guard let error = error as? ThumbnailError else { return false }
        return error.kind == kind && error.underlying as? Underlying == underlying
    }

    /// Whether `error` is a ``ThumbnailError`` of `kind`.
    static func matches(_ error: any Error, _ kind: Kind) -> Bool {
        (error as? ThumbnailError)?.kind == kind
    }
}
