import ThumbnailKit

/// A request that gets no thumbnail: the status and the short text the client
/// sees. The text is one of a few fixed phrases, never an error's own message,
/// which could carry the source URL's host, a path or a library's internals.
struct ServerFailure: Error, Equatable {
    let status: Int
    let message: String
    /// Seconds for `Retry-After`, for a refusal that a later try may get past.
    var retryAfter: Int?

    static let overloaded = ServerFailure(status: 503, message: "overloaded, try again", retryAfter: 1)
    static let sourceRefused = ServerFailure(status: 403, message: "source refused")
    static let deadlineExceeded = ServerFailure(status: 504, message: "deadline exceeded")
    /// The client left before its answer was ready (nginx's 499): only the access log sees it.
    static let clientClosedRequest = ServerFailure(status: 499, message: "client closed request")

    init(status: Int, message: String, retryAfter: Int? = nil) {
        self.status = status
        self.message = message
        self.retryAfter = retryAfter
    }

    /// What any failure of serving a thumbnail means to the client.
    init(_ error: any Error) {
        switch error {
        case let failure as ServerFailure: self = failure
        case is RenderAdmission.Overloaded: self = .overloaded
        default: self.init(ThumbnailError(error))
        }
    }

    /// 400 malformed, 403 bad signature.
    init(_ error: ThumbnailURLError) {
        switch error {
        case let .malformed(reason): self.init(status: 400, message: "malformed URL: \(reason)")
        case .badSignature: self.init(status: 403, message: "invalid signature")
        }
    }

    /// What the pipeline's failure means to the client: the origin's 404 is ours,
    /// its other answers and transport failures are a bad gateway, a source over
    /// a limit is 413, one that is not an image 415.
    init(_ error: ThumbnailError) {
        switch error.kind {
        case .fetch:
            switch error.underlying as? DataLoadingError {
            case .httpStatus(_, 404, _)?, .httpStatus(_, 410, _)?, .notFound?:
                self.init(status: 404, message: "source not found")
            case .tooLarge?:
                self.init(status: 413, message: "source too large")
            case .privateAddressRefused?, .redirectRefused?:
                self = .sourceRefused
            default:
                self.init(status: 502, message: "source could not be fetched")
            }
        case .decode:
            if case .tooLarge? = error.underlying as? ThumbnailDecodingError {
                self.init(status: 413, message: "source image too large")
            } else if error.underlying is ThumbnailDecodingError {
                self.init(status: 415, message: "source is not a supported image")
            } else {
                self.init(status: 500, message: "internal error")
            }
        case .cancelled:
            self.init(status: 503, message: "cancelled")
        case .storage, .store, .other:
            self.init(status: 500, message: "internal error")
        }
    }
}
