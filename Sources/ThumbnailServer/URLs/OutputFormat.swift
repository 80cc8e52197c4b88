import ThumbnailKit

/// The format a URL's extension asks for (`.jpg`, `.png`, `.webp`); none means
/// the one the thumbnail warrants (PNG when it can be transparent, else JPEG).
public enum OutputFormat: String, Sendable, Hashable, CaseIterable {
    /// JPEG, asked for with `.jpg`; drops alpha.
    case jpeg = "jpg"
    /// PNG, asked for with `.png`.
    case png
    /// Lossy WebP, asked for with `.webp`; alpha is kept.
    case webp

    /// The image format this names.
    public var imageFormat: ImageFormat {
        switch self {
        case .jpeg: .jpeg
        case .png: .png
        case .webp: .webp
        }
    }
}
