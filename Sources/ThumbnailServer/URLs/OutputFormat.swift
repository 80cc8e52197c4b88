import ThumbnailKit

/// The format a URL's extension asks for (`.jpg`, `.png`, `.webp`); none means
/// the one the thumbnail warrants (PNG when it can be transparent, else JPEG).
public enum OutputFormat: String, Sendable, Hashable, CaseIterable {
    case jpeg = "jpg"
    case png
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
