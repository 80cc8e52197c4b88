import CThumbnail

/// Facts about one decode: the source, the path taken, the colour conversion and the memory it needed.
public struct DecodeReport: Sendable, Hashable {
    /// What the source's header says: format, stored size, orientation, alpha.
    public let source: ImageHeader
    /// The JPEG DCT scale decoded, as M in M/8 (1, 2, 4 or 8); 8 for the other formats.
    public let scaleNumerator: Int
    /// Which decoder read a JPEG's entropy data; `nil` for the other formats.
    public let jpegPath: JPEGDecodePath?
    /// Whether a progressive JPEG's decode left out scans (the scan-skipping or the DC-only path).
    public var skippedScans: Bool { jpegPath == .skippingScans || jpegPath == .dcOnly }
    /// Whether the thumbnail was made from one the file carries (a HEIC's thumbnail item, large
    /// enough for the size asked) instead of its primary image.
    public let usedEmbeddedThumbnail: Bool
    /// What was done about the colour space the file declares; `nil` when it
    /// declares none (or conversion was off), so its values were taken as sRGB.
    public let colorProfile: ColorConversion?
    /// Peak bytes the decode held: the C module's buffers plus libjpeg/libpng's and LittleCMS's
    /// allocations (giflib's, which it does not report, by their known sizes).
    /// libwebp cannot be watched: for WebP this is the file held in memory, the thumbnail
    /// and an estimate of libwebp's working memory (its whole-frame buffers, row caches and state).
    public let peakDecodeBytes: Int
    /// `nil` for a clean decode. For an image that is whole but was damaged where it was made
    /// (a JPEG that reaches its end marker with bad Huffman codes, a scan that ends early or a
    /// missing scan), libjpeg's first complaint: the thumbnail shows the image as browsers
    /// draw it, the damaged part grey. A file cut short is ``ThumbnailDecodingError/truncated(_:)``.
    public let damage: String?
    /// Whether the source was damaged where it was made; ``damage`` says how.
    public var isDamaged: Bool { damage != nil }

    init(_ thumbnail: ct_thumbnail) {
        source = ImageHeader(thumbnail.source)
        scaleNumerator = Int(thumbnail.scale_numerator)
        jpegPath = JPEGDecodePath(thumbnail.jpeg_path)
        usedEmbeddedThumbnail = thumbnail.embedded_thumbnail != 0
        colorProfile = ColorConversion(thumbnail.color)
        peakDecodeBytes = Int(clamping: thumbnail.peak_bytes)
        let damage = String(cCharacters: thumbnail.damage)
        self.damage = damage.isEmpty ? nil : damage
    }
}

/// The ways a JPEG can be decoded, from the most general to the most specialised.
public enum JPEGDecodePath: String, Sendable, Hashable, CaseIterable {
    /// libjpeg, every scan.
    case libjpeg
    /// libjpeg, leaving out the progressive scans a reduced scale cannot use; the output is identical.
    case skippingScans = "skipping-scans"
    /// A progressive file at 1/8: its DC scans only, one coefficient per block instead
    /// of libjpeg's 64. Luma is identical to libjpeg's; 4:2:0 chroma is interpolated
    /// from the DC values, where libjpeg also reads AC terms.
    case dcOnly = "dc-only"

    init?(_ path: ct_jpeg_path) {
        switch path {
        case CT_JPEG_PATH_LIBJPEG: self = .libjpeg
        case CT_JPEG_PATH_SCAN_SKIPPING: self = .skippingScans
        case CT_JPEG_PATH_DC_ONLY: self = .dcOnly
        default: return nil
        }
    }
}

/// The image formats the decoder reads. Thumbnails are written as JPEG or PNG
/// only (``ThumbnailEncoder/writableFormats``).
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    /// JPEG, baseline or progressive: gray, YCbCr, RGB, CMYK or YCCK.
    case jpeg
    /// PNG of any bit depth and colour type (16-bit samples rounded to 8), interlaced or not.
    case png
    /// Lossy, lossless and animated WebP (the first frame is shown).
    case webp
    /// GIF87a or GIF89a: the first frame is decoded, an animation's other frames are not read.
    case gif
    /// AVIF: an AV1 still (grids, alpha, transforms) or the first frame of an AVIS sequence.
    case avif
    /// HEIC (HEIF with HEVC images): from its embedded thumbnail item when that is large enough.
    case heic
    /// JPEG XL, lossy, lossless or a recompressed JPEG: always decoded at full size (libjxl 0.7 has no faster reduced path).
    case jxl

    /// Sniffs the format from the first bytes (at most 64: an ISO-BMFF `ftyp` box); `nil` when
    /// the bytes are none of the formats.
    package init?(sniffing bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(Int(CT_SNIFF_BYTES)))
        guard let format = ImageFormat(head.withUnsafeBufferPointer { ct_sniff_format($0.baseAddress, $0.count) })
        else { return nil }
        self = format
    }

    /// The Swift case of a C format; `nil` for `CT_FORMAT_UNKNOWN`.
    init?(_ format: ct_format) {
        switch format {
        case CT_FORMAT_JPEG: self = .jpeg
        case CT_FORMAT_PNG: self = .png
        case CT_FORMAT_WEBP: self = .webp
        case CT_FORMAT_GIF: self = .gif
        case CT_FORMAT_AVIF: self = .avif
        case CT_FORMAT_HEIC: self = .heic
        case CT_FORMAT_JXL: self = .jxl
        default: return nil
        }
    }

    /// The format's media type, as HTTP names it.
    package var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .gif: "image/gif"
        case .avif: "image/avif"
        case .heic: "image/heic"
        case .jxl: "image/jxl"
        }
    }

    /// An HTTP `Accept` value naming exactly the formats the decoder reads.
    package static let acceptedMediaTypes = allCases.map(\.mediaType).joined(separator: ", ")

    /// The usual file extension.
    package var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .gif: "gif"
        case .avif: "avif"
        case .heic: "heic"
        case .jxl: "jxl"
        }
    }
}
