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

    /// Numbers ``coarsePNG(_:width:height:)`` can carry: 22 steps in each of three channels.
    public static let coarseNumbers = 0..<(22 * 22 * 22)

    /// A lossless PNG, `width` × `height`, of one colour that carries `number` in steps of 11 in
    /// each channel, so that a lossy encoding on the way (WebP, JPEG: a few units off on a flat
    /// colour) still shows which it is: ``coarseNumber(red:green:blue:)`` reads it back.
    public static func coarsePNG(_ number: Int, width: Int, height: Int) throws -> [UInt8] {
        precondition(coarseNumbers.contains(number))
        let (r, g, b) = (level(number % 22), level(number / 22 % 22), level(number / 484))
        return try RGBAImage(width: width, height: height) { _, _ in (r, g, b, 255) }.png()
    }

    /// The number a pixel of a ``coarsePNG(_:width:height:)`` image shows; `nil` when a channel is
    /// more than 4 units from every step (not such an image, or one mixed with another).
    public static func coarseNumber(red: Int, green: Int, blue: Int) -> Int? {
        var digits: [Int] = []
        for value in [red, green, blue] {
            let digit = Int((Double(value - 12) / 11).rounded())
            guard (0..<22).contains(digit), abs(Int(level(digit)) - value) <= 4 else { return nil }
            digits.append(digit)
        }
        return digits[0] + digits[1] * 22 + digits[2] * 484
    }

    private static func level(_ digit: Int) -> UInt8 { UInt8(12 + digit * 11) }
}
