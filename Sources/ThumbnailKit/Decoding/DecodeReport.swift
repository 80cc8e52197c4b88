import CThumbnail

/// Facts about one decode: the source, the path taken and the memory it needed.
public struct DecodeReport: Sendable, Hashable {
    /// What the source's header says: format, stored size, orientation, alpha.
    public let source: ImageHeader
    /// The JPEG DCT scale decoded, as M in M/8 (1, 2, 4 or 8); 8 for PNG.
    public let scaleNumerator: Int
    /// Whether a progressive JPEG skipped the scans its scale cannot use.
    public let skippedScans: Bool
    /// Peak bytes the decode held: the C module's buffers plus libjpeg/libpng's allocations.
    public let peakDecodeBytes: Int

    init(_ thumbnail: ct_thumbnail) {
        source = ImageHeader(thumbnail.source)
        scaleNumerator = Int(thumbnail.scale_numerator)
        skippedScans = thumbnail.skipped_scans != 0
        peakDecodeBytes = Int(clamping: thumbnail.peak_bytes)
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

    /// The usual file extension.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        }
    }
}
