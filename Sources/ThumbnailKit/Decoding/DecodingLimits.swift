import CThumbnail

/// Bounds checked against an image's header before anything proportional to
/// the image is allocated, so hostile headers and decompression bombs fail fast.
public struct DecodingLimits: Sendable, Hashable {
    /// Maximum source width in pixels; `nil` for no bound. Default: none.
    public var maxWidth: Int?
    /// Maximum source height in pixels; `nil` for no bound. Default: none.
    public var maxHeight: Int?
    /// Maximum source width × height. Default: 100 megapixels.
    public var maxPixels: Int?
    /// Maximum working memory the codec library may allocate. A progressive
    /// JPEG needs a whole-image coefficient buffer (about 6 bytes per pixel for
    /// 4:2:0), a lossless WebP libwebp's whole ARGB image (4 bytes per pixel),
    /// a lossy WebP with alpha its alpha plane (1, or up to 5 bytes per pixel):
    /// each is refused when it does not fit, as is a WebP file too large to
    /// hold (libwebp decodes from memory). Default: 512 MiB.
    public var maxDecoderMemory: Int?

    public init(maxWidth: Int? = nil, maxHeight: Int? = nil, maxPixels: Int? = 100_000_000,
                maxDecoderMemory: Int? = 512 * 1024 * 1024) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.maxPixels = maxPixels
        self.maxDecoderMemory = maxDecoderMemory
    }

    /// The defaults: 100 megapixels and 512 MiB of working memory.
    public static let `default` = DecodingLimits()

    var cValue: ct_limits {
        ct_limits(
            max_width: UInt32(clamping: maxWidth ?? 0),
            max_height: UInt32(clamping: maxHeight ?? 0),
            max_pixels: UInt64(clamping: maxPixels ?? 0),
            max_decoder_memory: UInt64(clamping: maxDecoderMemory ?? 0))
    }
}
