import NIOCore
import ThumbnailKit

/// An encoded thumbnail ready to send: its bytes, in the buffer every
/// response that sends it shares, and the facts its headers carry.
struct ServedThumbnail: Sendable {
    let bytes: ByteBuffer
    let format: ImageFormat
    let entityTag: EntityTag
    /// The origin's `Last-Modified` for the original, when known.
    let lastModified: String?
    /// The original's facts: its size is sent as `X-Source-Size`.
    let source: ImageHeader
    /// The tier that answered this request.
    var tier: ServedTier

    init(bytes: ByteBuffer, format: ImageFormat, lastModified: String?, source: ImageHeader, tier: ServedTier) {
        self.bytes = bytes
        self.format = format
        entityTag = bytes.withUnsafeReadableBytes { EntityTag(of: $0) }
        self.lastModified = lastModified
        self.source = source
        self.tier = tier
    }

    /// What it costs in the memory tier: its bytes, and a little for the entry.
    var cost: Int { bytes.readableBytes + 256 }
}

/// Which tier answered a request: sent as `X-Thumbnail-Tier`, logged, and counted.
enum ServedTier: String, Sendable {
    /// The server's memory of encoded thumbnails.
    case memory
    /// The disk tier's stored thumbnail, sent as stored.
    case disk
    /// The object store's stored thumbnail, sent as stored.
    case store
    /// Made by the pipeline (fetched and decoded, or decoded from a stored copy in another format) and encoded.
    case render
}

/// What the memory tier holds thumbnails by: the URL's source and box, and
/// the format asked for (`nil`: as the thumbnail warrants, JPEG or PNG).
struct ServedKey: Hashable, Sendable {
    let source: String
    let size: ThumbnailSize
    let format: ImageFormat?

    var thumbnailKey: ThumbnailKey { ThumbnailKey(url: source, size: size) }
}
