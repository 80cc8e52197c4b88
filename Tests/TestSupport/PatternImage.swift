import ThumbnailKit

/// A picture for reference encoders to compress: ramps across and down, and a pattern that does not
/// compress away, so an encoder's modes and a decoder's buffers are exercised as by a photo.
public enum PatternImage {
    /// `width × height` RGBA as PNG; alpha varies with the position when `alpha`, else it is opaque.
    public static func png(width: Int, height: Int, alpha: Bool) throws -> [UInt8] {
        let pixels = (0..<(width * height)).flatMap { index -> [UInt8] in
            let x = index % width, y = index / width
            return [UInt8(x * 255 / max(width - 1, 1)), UInt8(y * 255 / max(height - 1, 1)),
                    UInt8((x * 7 + y * 3) % 256), alpha ? UInt8((x + y) % 256) : 255]
        }
        return try ThumbnailEncoder().encode(rgba: pixels, width: width, height: height, as: .png)
    }
}
