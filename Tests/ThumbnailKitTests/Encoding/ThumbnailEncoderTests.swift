import TestSupport
import Testing
import ThumbnailKit

/// JPEG for opaque thumbnails, PNG for ones with alpha, WebP when asked; all decode back.
@Suite struct ThumbnailEncoderTests {
    let blocks = RGBAImage(width: 64, height: 48) { x, y in (UInt8(x / 16 * 80), UInt8(y / 16 * 100), 60, 255) }

    @Test func pngRoundTripsEveryPixelIncludingAlpha() throws {
        let image = RGBAImage(width: 31, height: 17) { x, y in (UInt8(x * 8), UInt8(y * 15), 99, UInt8(x * 8 + 1)) }
        let png = try ThumbnailEncoder().encode(rgba: image.bytes, width: 31, height: 17, as: .png)
        let decoded = try ThumbnailDecoder(size: .original).decode(png)

        #expect(ImageFormat(sniffing: png) == .png)
        #expect(decoded.hasAlpha)
        #expect(decoded.maximumDifference(from: image) == 0)
    }

    @Test func anOpaqueImageIsWrittenAsRGBWithoutAlpha() throws {
        let png = try ThumbnailEncoder().encode(rgba: blocks.bytes, width: 64, height: 48, as: .png)
        let header = try ThumbnailDecoder().readHeader(png)
        #expect(header.components == 3 && !header.hasAlpha)
    }

    @Test func jpegRoundTripsCloselyAtTheChosenQuality() throws {
        let jpeg = try ThumbnailEncoder(jpegQuality: 95).encode(rgba: blocks.bytes, width: 64, height: 48, as: .jpeg)
        let decoded = try ThumbnailDecoder(size: .original).decode(jpeg)

        #expect(ImageFormat(sniffing: jpeg) == .jpeg)
        #expect(decoded.width == 64 && decoded.height == 48)
        #expect(decoded.meanDifference(from: try ThumbnailDecoder(size: .original).decode(try blocks.png())) < 3)
    }

    @Test func webpRoundTripsClosely() throws {
        let webp = try ThumbnailEncoder(webpQuality: 90).encode(rgba: blocks.bytes, width: 64, height: 48, as: .webp)
        let decoded = try ThumbnailDecoder(size: .original).decode(webp)

        #expect(ImageFormat(sniffing: webp) == .webp)
        #expect(decoded.width == 64 && decoded.height == 48 && !decoded.hasAlpha)
        #expect(decoded.meanDifference(from: try ThumbnailDecoder(size: .original).decode(try blocks.png())) < 3)
    }

    @Test func webpKeepsAlphaAndIsDeterministic() throws {
        let image = RGBAImage(width: 31, height: 17) { x, y in (UInt8(x * 8), UInt8(y * 15), 99, x < 15 ? 0 : 255) }
        let first = try ThumbnailEncoder().encode(rgba: image.bytes, width: 31, height: 17, as: .webp)
        let second = try ThumbnailEncoder().encode(rgba: image.bytes, width: 31, height: 17, as: .webp)
        let decoded = try ThumbnailDecoder(size: .original).decode(first)

        #expect(first == second)
        #expect(decoded.hasAlpha)
        #expect(decoded.pixels[3] == 0 && decoded.pixels[(31 - 1) * 4 + 3] == 255)
    }

    @Test func lowerQualityMakesSmallerFiles() throws {
        let photo = RGBAImage(width: 128, height: 128) { x, y in (UInt8((x * y) % 256), UInt8((x + 3 * y) % 256), UInt8(x ^ y), 255) }
        let high = try ThumbnailEncoder(jpegQuality: 95).encode(rgba: photo.bytes, width: 128, height: 128, as: .jpeg)
        let low = try ThumbnailEncoder(jpegQuality: 30).encode(rgba: photo.bytes, width: 128, height: 128, as: .jpeg)
        #expect(low.count < high.count)
    }

    @Test func theDefaultFormatFollowsAlpha() throws {
        let opaque = try ThumbnailDecoder().decode(try blocks.png())
        let translucent = try ThumbnailDecoder().decode(
            try RGBAImage(width: 8, height: 8) { _, _ in (1, 2, 3, 100) }.png())
        #expect(ThumbnailEncoder().preferredFormat(for: opaque) == .jpeg)
        #expect(ThumbnailEncoder().preferredFormat(for: translucent) == .png)
    }

    @Test func badArgumentsAreErrorsNotCrashes() {
        #expect(throws: ThumbnailEncodingError.self) {
            try ThumbnailEncoder().encode(rgba: [UInt8](repeating: 0, count: 10), width: 2, height: 2, as: .png)
        }
        #expect(throws: ThumbnailEncodingError.self) {
            try ThumbnailEncoder(jpegQuality: 0).encode(rgba: blocks.bytes, width: 64, height: 48, as: .jpeg)
        }
        #expect(throws: ThumbnailEncodingError.self) {
            try ThumbnailEncoder().encode(rgba: [UInt8](), width: 0, height: 0, as: .jpeg)
        }
        let gif = #expect(throws: ThumbnailEncodingError.self) {
            try ThumbnailEncoder().encode(rgba: blocks.bytes, width: 64, height: 48, as: .gif)
        }
        #expect(gif?.message == "thumbnails are written as JPEG, PNG or WebP, not gif")
    }
}
