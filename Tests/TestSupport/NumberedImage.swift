import ThumbnailKit

/// Images whose colour carries a number, so a test can tell from a thumbnail's
/// pixels which image it is: a reused row showing another row's picture shows
/// another number.
public enum NumberedImage {
    /// The blue of every numbered image: a picture without it is not one of them.
    static let marker: UInt8 = 200

    /// A lossless PNG, `size` × `size`, of one colour that encodes `number` (0…65535).
    public static func png(_ number: Int, size: Int = 48) throws -> [UInt8] {
        precondition((0...0xFFFF).contains(number))
        return try RGBAImage(width: size, height: size) { _, _ in
            (UInt8(number & 0xFF), UInt8(number >> 8), marker, 255)
        }.png()
    }

    /// The number `thumbnail` shows; `nil` if it is not a numbered image.
    /// A one-colour image downscales to the same colour, so this is exact.
    public static func number(in thumbnail: Thumbnail) -> Int? {
        let (r, g, b, _) = thumbnail.pixel(x: thumbnail.width / 2, y: thumbnail.height / 2)
        return b == marker ? Int(r) | Int(g) << 8 : nil
    }
}
