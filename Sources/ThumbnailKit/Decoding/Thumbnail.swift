import CThumbnail

/// A decoded, downscaled image: RGBA8 pixels, the facts of the original it
/// shows, and, when a decode made it, what that decode took.
public struct Thumbnail: Sendable {
    /// Width in pixels, after EXIF orientation.
    public let width: Int
    /// Height in pixels, after EXIF orientation.
    public let height: Int
    /// `width × height × 4` bytes of RGBA8, straight alpha.
    public let pixels: PixelBuffer
    /// What the original's header says (its format, stored size, orientation,
    /// alpha), whichever tier answered: a thumbnail read back from the disk
    /// tier carries its original's facts, not its own.
    public let source: ImageHeader
    /// What the decode of the original that made this thumbnail found and
    /// cost; `nil` when no decode did (a thumbnail read back from the disk tier).
    public let report: DecodeReport?
    /// The origin's `Last-Modified` for the original, when the tier that
    /// answered knows it (a server passes it on).
    package var originLastModified: String?

    /// Bytes of pixel memory this thumbnail holds: its cost in a memory cache.
    public var byteCount: Int { pixels.count }

    /// Whether any pixel can be transparent (the source had alpha or transparency).
    public var hasAlpha: Bool { source.hasAlpha }

    /// The RGBA value at column `x`, row `y`.
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)x\(height)")
        let offset = (y * width + x) * 4
        return (pixels[offset], pixels[offset + 1], pixels[offset + 2], pixels[offset + 3])
    }

    /// This thumbnail scaled down to exactly `width` × `height` with the
    /// decoder's area filter, keeping its source facts and the report of the
    /// decode that made it.
    /// One decode at the largest size can so serve several smaller ones.
    /// - Throws: ``ThumbnailDecodingError/outOfMemory(_:)``; a precondition
    ///   failure if the size is larger than this thumbnail's.
    public func downscaled(toWidth width: Int, height: Int) throws -> Thumbnail {
        precondition(width >= 1 && height >= 1 && width <= self.width && height <= self.height,
                     "cannot scale \(self.width)x\(self.height) down to \(width)x\(height)")
        var output: UnsafeMutablePointer<UInt8>?
        var error = ct_error()
        let status = pixels.withUnsafeBytes { raw in
            ct_downscale_rgba(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt32(self.width),
                              UInt32(self.height), UInt32(width), UInt32(height), &output, &error)
        }
        guard status == CT_OK, let output else { throw error.swiftError() }
        var scaled = Thumbnail(width: width, height: height,
                               pixels: PixelBuffer(takingOwnershipOf: output, count: width * height * 4),
                               source: source, report: report)
        scaled.originLastModified = originLastModified
        return scaled
    }

    /// A thumbnail of pixels made elsewhere (a test, a tier of the app's own).
    /// A precondition failure unless `pixels` holds exactly `width × height × 4` bytes.
    /// - Parameters:
    ///   - width: Width in pixels.
    ///   - height: Height in pixels.
    ///   - pixels: RGBA8 pixels, straight alpha, row by row from the top left.
    ///   - source: The facts of the original it shows.
    ///   - report: What its decode found and cost; `nil` when no decode made it.
    public init(width: Int, height: Int, pixels: PixelBuffer, source: ImageHeader, report: DecodeReport?) {
        precondition(pixels.count == width * height * 4, "pixel buffer does not match \(width)x\(height) RGBA8")
        self.width = width
        self.height = height
        self.pixels = pixels
        self.source = source
        self.report = report
    }
}
