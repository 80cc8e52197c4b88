import Hummingbird

extension HTTPResponse.Status {
    /// The status Hummingbird answers `error` with, thrown by a handler: its own
    /// when it is an ``HTTPResponseError`` (a route not found: 404), else 500.
    init(answering error: any Error) {
        self = (error as? any HTTPResponseError)?.status ?? .internalServerError
    }
}
