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
    /// Maximum working memory a decode may allocate: the codec library's and
    /// the area filter's sums (16 bytes a sample of a source row; for an
    /// interlaced PNG or GIF 8 bytes a sample of the whole thumbnail, 32 a
    /// pixel for RGBA), each refused before it is allocated when it does not
    /// fit. The thumbnail itself is not counted. A progressive JPEG's
    /// whole-image coefficient buffer (128 bytes for every 8×8 block of every
    /// component: 3 bytes a pixel for 4:2:0, 6 for 4:4:4) that does not fit goes to an unlinked
    /// temporary file in `$TMPDIR` (or /tmp), with about 1 MiB per component
    /// kept in memory: it decodes within the limit, at the cost of reading and
    /// writing that file once per scan. libwebp's whole-frame buffers cannot
    /// be bounded so: a lossless WebP's ARGB image (4 bytes per pixel), a lossy
    /// WebP's alpha plane (1, or up to 5 bytes per pixel), with the WebP file
    /// held whole, are refused as ``ThumbnailDecodingError/tooLarge(_:)``,
    /// naming the bytes needed, before libwebp allocates them; so are
    /// libavif's and libheif's frames (an AVIF's YUV planes, 1.5 bytes a pixel
    /// for 8-bit 4:2:0; a HEIC image's planar RGB). JPEG XL is checked against
    /// ``maxJPEGXLDecoderMemory`` instead. Default: 32 MiB, so one decode of
    /// any image keeps a process near 64 MiB.
    public var maxDecoderMemory: Int?
    /// Maximum working memory of a JPEG XL decode, in place of
    /// ``maxDecoderMemory``. libjxl 0.7 allocates with `malloc` and ends the
    /// process when an allocation fails, so its memory cannot be refused as it
    /// grows: a decode is admitted by an upper bound of libjxl's memory,
    /// estimated from the header for the costliest kind of file of that size
    /// (lossless with 1024-pixel groups, photon noise, extra channels), and
    /// refused as ``ThumbnailDecodingError/tooLarge(_:)`` past this limit. The
    /// bound is about 35 MiB for the smallest image, 182 MiB for 1920×1080 and
    /// 995 MiB for 12 megapixels; from 3 megapixels up a lossy file without
    /// alpha uses 4–6 % of it and a recompressed JPEG 1–5 %, a lossy file with
    /// alpha about 35 %. Default: 256 MiB, which admits JPEG XL images up to
    /// about 2 megapixels.
    public var maxJPEGXLDecoderMemory: Int?

    /// Limits with the given bounds; `nil` leaves a bound unchecked.
    /// - Parameters:
    ///   - maxWidth: Maximum source width in pixels. Default: none.
    ///   - maxHeight: Maximum source height in pixels. Default: none.
    ///   - maxPixels: Maximum source width × height. Default: 100 000 000.
    ///   - maxDecoderMemory: Maximum working memory of a decode, in bytes. Default: 32 MiB.
    ///   - maxJPEGXLDecoderMemory: Maximum working memory of a JPEG XL decode, in bytes. Default: 256 MiB.
    public init(maxWidth: Int? = nil, maxHeight: Int? = nil, maxPixels: Int? = 100_000_000,
                maxDecoderMemory: Int? = 32 * 1024 * 1024, maxJPEGXLDecoderMemory: Int? = 256 * 1024 * 1024) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.maxPixels = maxPixels
        self.maxDecoderMemory = maxDecoderMemory
        self.maxJPEGXLDecoderMemory = maxJPEGXLDecoderMemory
    }

    /// The defaults: 100 megapixels, 32 MiB of working memory, 256 MiB for JPEG XL.
    public static let `default` = DecodingLimits()

    var cValue: ct_limits {
        ct_limits(
            max_width: UInt32(clamping: maxWidth ?? 0),
            max_height: UInt32(clamping: maxHeight ?? 0),
            max_pixels: UInt64(clamping: maxPixels ?? 0),
            max_decoder_memory: UInt64(clamping: maxDecoderMemory ?? 0),
            max_jxl_decoder_memory: UInt64(clamping: maxJPEGXLDecoderMemory ?? 0))
    }
}
