import ThumbnailKit
/// Big synthetic images, made fast enough for a debug build.
public enum LargeImage {
    /// Smooth gradients with a little texture, so the codecs work as on a photo.
    public static func photoLike(width: Int, height: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: width * height * 4) { buffer, count in
            for y in 0..<height {
                let row = y * width * 4
                let g = UInt8(truncatingIfNeeded: y * 255 / height)
                for x in 0..<width {
                    let offset = row + x * 4
                    buffer[offset] = UInt8(truncatingIfNeeded: x * 255 / width)
                    buffer[offset + 1] = g
                    buffer[offset + 2] = UInt8(truncatingIfNeeded: (x &* 31 &+ y &* 17) & 63)
                    buffer[offset + 3] = 255
                }
            }
            count = width * height * 4
        }
    }
}
