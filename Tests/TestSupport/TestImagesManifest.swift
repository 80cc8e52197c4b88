import Foundation

/// TestImages/manifest.json: every generated test image with its expected
/// outcome and header facts (written by scripts/make-test-images.py).
public struct TestImageEntry: Decodable, Sendable, CustomStringConvertible {
    public struct Header: Decodable, Sendable {
        public let width: Int
        public let height: Int
        public let components: Int
        public let bitDepth: Int
        public let hasAlpha: Bool
        public let progressive: Bool
        public let orientation: Int
        /// Bytes per pixel of the codec's whole-image buffers (lossless WebP 4, lossy WebP alpha 1 or 5).
        public let wholeImageBytesPerPixel: Int

        enum CodingKeys: String, CodingKey {
            case width, height, components, bitDepth = "bit_depth", hasAlpha = "has_alpha", progressive, orientation
            case wholeImageBytesPerPixel = "whole_image_bytes_per_pixel"
        }
    }

    /// Path relative to TestImages/ (files that must fail live in `invalid/`).
    public let relativePath: String
    /// The file name alone.
    public let name: String
    public let format: String
    /// `decodes`, or the expected error kind (`corrupt`, `truncated`, `tooLarge`, …).
    public let expect: String
    /// Header facts; `nil` when the header itself is damaged.
    public let header: Header?
    /// For an Adam7 file, its non-interlaced twin with identical pixels.
    public let samePixelsAs: String?

    enum CodingKeys: String, CodingKey {
        case relativePath = "path", name, format, expect, header, samePixelsAs = "same_pixels_as"
    }

    public var path: String { Fixtures.testImage(relativePath) }
    public var description: String { relativePath }
}

public enum TestImagesManifest {
    struct File: Decodable {
        let files: [TestImageEntry]
    }

    /// Every entry, in the manifest's order.
    public static let entries: [TestImageEntry] = {
        let url = URL(fileURLWithPath: Fixtures.testImage("manifest.json"))
        guard let data = try? Data(contentsOf: url), let file = try? JSONDecoder().decode(File.self, from: data)
        else { return [] }
        return file.files
    }()

    /// The first entry whose name starts with `prefix` and contains every one of `parts`.
    public static func entry(prefix: String, containing parts: String...) -> TestImageEntry? {
        entries.first { entry in
            entry.name.hasPrefix(prefix) && parts.allSatisfy { entry.name.contains($0) }
        }
    }
}
