import Hummingbird
import NIOCore

/// A request context that knows the connection a request came on, so that a
/// client that hangs up cancels its request's work. With any other context
/// ``ThumbnailServer`` works the same, except that a request runs to its end
/// (or its deadline) after its client has gone.
public protocol ConnectionRequestContext: RequestContext {
    /// The client's connection.
    var connection: any Channel { get }
}

/// The request context `thumbnailer serve` uses: Hummingbird's basic one,
/// with the request's connection.
public struct ThumbnailRequestContext: ConnectionRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let connection: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        connection = source.channel
    }
}
