/// A decoded, downscaled image: RGBA8 pixels and what it took to make them.
public struct Thumbnail: Sendable {
    /// Width in pixels, after EXIF orientation.
    public let width: Int
    /// Height in pixels, after EXIF orientation.
    public let height: Int
    /// `width × height × 4` bytes of RGBA8, straight alpha.
    public let pixels: PixelBuffer
    /// What the decode found and cost.
    public let report: DecodeReport

    /// Bytes of pixel memory this thumbnail holds: its cost in a memory cache.
    public var byteCount: Int { pixels.count }

    /// Whether any pixel can be transparent (the source had alpha or transparency).
    public var hasAlpha: Bool { report.source.hasAlpha }

    /// The RGBA value at column `x`, row `y`.
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)x\(height)")
        let offset = (y * width + x) * 4
        return (pixels[offset], pixels[offset + 1], pixels[offset + 2], pixels[offset + 3])
    }

    public init(width: Int, height: Int, pixels: PixelBuffer, report: DecodeReport) {
        precondition(pixels.count == width * height * 4, "pixel buffer does not match \(width)x\(height) RGBA8")
        self.width = width
        self.height = height
        self.pixels = pixels
        self.report = report
    }
}
