/// Why a thumbnail URL was refused before any work began.
public enum ThumbnailURLError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not of the URL format; the reason is safe to show the client.
    case malformed(String)
    /// The signature is not the one for the path (or not `_` when unsigned).
    case badSignature

    public var description: String {
        switch self {
        case let .malformed(reason): "malformed thumbnail URL: \(reason)"
        case .badSignature: "invalid signature"
        }
    }
}
