import CThumbnail

/// Why an image could not be turned into a thumbnail. Each case carries a
/// message naming what is wrong (which marker, which chunk, which limit).
public enum ThumbnailDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes are not JPEG, PNG, WebP, GIF, AVIF, HEIC or JPEG XL, judged by their magic bytes.
    case unsupportedFormat(String)
    /// The data is structurally invalid (bad marker, CRC, zlib or Huffman data).
    case corrupt(String)
    /// The data ends before the image does. Never cached, never shown grey-filled.
    case truncated(String)
    /// The image exceeds a ``DecodingLimits`` bound (size, pixels or working memory).
    case tooLarge(String)
    /// Valid but not supported by this build (12-bit or lossless JPEG, for example).
    case unsupportedFeature(String)
    /// An allocation failed.
    case outOfMemory(String)
    /// The input file could not be opened or read.
    case unreadable(String)

    /// The human-readable reason, without the case name.
    public var message: String {
        switch self {
        case .unsupportedFormat(let message), .corrupt(let message), .truncated(let message),
            .tooLarge(let message), .unsupportedFeature(let message), .outOfMemory(let message),
            .unreadable(let message):
            return message
        }
    }

    /// A short name for the kind of failure, stable for scripts (`corrupt`, `truncated`, …).
    public var kind: String {
        switch self {
        case .unsupportedFormat: "unsupportedFormat"
        case .corrupt: "corrupt"
        case .truncated: "truncated"
        case .tooLarge: "tooLarge"
        case .unsupportedFeature: "unsupportedFeature"
        case .outOfMemory: "outOfMemory"
        case .unreadable: "unreadable"
        }
    }

    public var description: String { "\(kind): \(message)" }
}

extension ct_error {
    /// The NUL-terminated message as a String.
    var text: String { String(cCharacters: message) }

    /// The C module's status and message as a Swift error; `CancellationError` for a cancelled decode.
    func swiftError() -> any Error {
        let message = text
        switch status {
        case CT_UNSUPPORTED_FORMAT: return ThumbnailDecodingError.unsupportedFormat(message)
        case CT_CORRUPT: return ThumbnailDecodingError.corrupt(message)
        case CT_TRUNCATED: return ThumbnailDecodingError.truncated(message)
        case CT_TOO_LARGE: return ThumbnailDecodingError.tooLarge(message)
        case CT_UNSUPPORTED_FEATURE: return ThumbnailDecodingError.unsupportedFeature(message)
        case CT_OUT_OF_MEMORY: return ThumbnailDecodingError.outOfMemory(message)
        case CT_IO_ERROR: return ThumbnailDecodingError.unreadable(message)
        case CT_CANCELLED: return CancellationError()
        default: return ThumbnailDecodingError.corrupt("internal decoder error: \(message)")
        }
    }
}
