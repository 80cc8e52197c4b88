import CThumbnail

/// Facts about one decode: the source, the path taken, the colour conversion and the memory it needed.
public struct DecodeReport: Sendable, Hashable {
    /// What the source's header says: format, stored size, orientation, alpha.
    public let source: ImageHeader
    /// The JPEG DCT scale decoded, as M in M/8 (1, 2, 4 or 8); 8 for PNG.
    public let scaleNumerator: Int
    /// Which decoder read a JPEG's entropy data; `nil` for PNG.
    public let jpegPath: JPEGDecodePath?
    /// Whether a progressive JPEG's decode left out scans (the scan-skipping or the DC-only path).
    public var skippedScans: Bool { jpegPath == .skippingScans || jpegPath == .dcOnly }
    /// What was done about the colour space the file declares; `nil` when it
    /// declares none (or conversion was off), so its values were taken as sRGB.
    public let colorProfile: ColorConversion?
    /// Peak bytes the decode held: the C module's buffers plus libjpeg/libpng's and LittleCMS's allocations.
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

/// The image formats the decoder reads.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    case jpeg
    case png

    /// Sniffs the format from the first bytes; `nil` when neither JPEG nor PNG.
    public init?(sniffing bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(8))
        switch ct_sniff_format(head, head.count) {
        case CT_FORMAT_JPEG: self = .jpeg
        case CT_FORMAT_PNG: self = .png
        default: return nil
        }
    }

    /// The format's media type, as HTTP names it.
    public var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        }
    }

    /// An HTTP `Accept` value naming exactly the formats the decoder reads.
    public static let acceptedMediaTypes = allCases.map(\.mediaType).joined(separator: ", ")

    /// The usual file extension.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        }
    }
}
