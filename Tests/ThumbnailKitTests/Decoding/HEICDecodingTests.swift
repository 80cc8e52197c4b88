import Foundation
import PropertyBased
import TestSupport
import Testing
@testable import ThumbnailKit

/// HEIC through libheif and libde265: the thumbnail item when it covers the wanted size, else
/// the primary image's rows into the area filter, libheif's whole-image planes counted from the
/// header and refused past the limit, and the bound ct_heic_decode.c states held on pictures
/// heif-enc makes at random sizes. Pixels against heif-convert are in ReferenceDecoderTests,
/// libheif's own files in ModernFormatsConformanceTests.
@Suite struct HEICDecodingTests {
    static let iPhoneLike = "heic-iphone-grid-thumbnail-irot-1008x756.heic"
    static let photo = "heic-photo-1024x683.heic"
    static let heifEnc = "/usr/bin/heif-enc"

    @Test func aThumbnailItemThatCoversTheBoxIsDecodedInsteadOfThePrimaryImage() throws {
        let path = Fixtures.testImage(Self.iPhoneLike)
        // Shown upright (irot), 756×1008 into 256 is 192×256, which the 240×320 thumbnail item covers.
        let small = try ThumbnailDecoder(size: .fit(256)).decode(contentsOfFile: path)
        #expect(small.width == 192 && small.height == 256)
        #expect(small.report?.usedEmbeddedThumbnail == true)
        #expect(small.source.width == 1008 && small.source.height == 756 && small.source.orientation == 8,
                "the source facts stay the primary's")
        // 400 px is more than the item holds: the grid primary is decoded.
        let large = try ThumbnailDecoder(size: .fit(400)).decode(contentsOfFile: path)
        #expect(large.width == 300 && large.height == 400 && large.report?.usedEmbeddedThumbnail == false)
        // Both upright and alike: the item is the picture, smaller.
        #expect(try large.downscaled(toWidth: 192, height: 256).peakSignalToNoiseRatio(against: small) > 30)
        // The item's 320×240 RGB planes against the grid's 1008×756 ones.
        let smallPeak = try #require(small.report?.peakDecodeBytes), largePeak = try #require(large.report?.peakDecodeBytes)
        #expect(smallPeak * 4 < largePeak, "\(smallPeak) bytes from the item, \(largePeak) from the primary")
        let plain = try ThumbnailDecoder(size: .fit(256)).decode(contentsOfFile: Fixtures.testImage(Self.photo))
        #expect(plain.report?.usedEmbeddedThumbnail == false)
    }

    @Test func thePrimaryImagesPlanesAreCountedFromTheHeaderAndRefusedPastTheLimit() throws {
        let path = Fixtures.testImage(Self.photo)
        let header = try ThumbnailDecoder().readHeader(Fixtures.bytes(atPath: path))
        // libheif hands out planar RGB: 3 bytes a pixel of 1024×683 at least.
        #expect(header.wholeImageBytes > 1024 * 683 * 3)
        #expect {
            try ThumbnailDecoder(limits: DecodingLimits(maxDecoderMemory: 1024 * 1024)).decode(contentsOfFile: path)
        } throws: { error in
            guard case ThumbnailDecodingError.tooLarge(let message) = error else { return false }
            return message.contains("HEIC") && message.contains("bytes") && message.contains("1 MiB")
        }
    }

    /// What heif-enc is asked to make (8-bit 4:2:0, with or without a thumbnail item), and the box.
    struct Picture: Sendable, CustomStringConvertible {
        let width: Int, height: Int, thumbnailItem: Bool, box: Int
        var description: String { "\(width)x\(height)\(thumbnailItem ? " with a 160 px item" : "") into \(box)" }
    }

    /// heif-enc refuses a thumbnail item larger than the picture, so only pictures with a side
    /// over 160 px get one.
    static let pictures = zip(Gen.int(in: 16...600), Gen.int(in: 16...600), Gen.bool, Gen.int(in: 16...300))
        .map { Picture(width: $0 & ~1, height: $1 & ~1, thumbnailItem: $2 && max($0, $1) > 161, box: $3) }

    /// The terms of the bound ct_heic_decode.c states, added up (their maximum is the bound), for
    /// one 8-bit 4:2:0 HEVC picture of w×h decoded from a file of S bytes: libheif's objects and
    /// kept metadata (under 1 MiB for these files), the item's data at most four times (S each),
    /// decoding 2P + M, converting Y + R, the RGB planes that stay, R, and ours: an RGBA row, the
    /// filter's sums (16 bytes a sample of a row and a thumbnail column), the thumbnail twice.
    static func statedBound(_ picture: Picture, fileBytes: Int, thumbnail: Thumbnail) -> Int {
        let w = picture.width, h = picture.height
        let padded = Double((w + 64) * (h + 64))
        let decoding = 2 * padded * 1.5 + 1.5 * padded
        let converting = Double((w + 16) * h) * 1.5 + Double(3 * (w + 16) * h)
        let planes = Double(3 * (w + 16) * h)
        let ours = 4 * w + 64 * w + 16 * thumbnail.width + 8 * thumbnail.width * thumbnail.height
        return (1 << 20) + 4 * fileBytes + Int(decoding + converting + planes) + ours
    }

    static func encode(_ picture: Picture, in directory: URL) throws -> String {
        let png = try StatedBoundCheck.patternPNG(width: picture.width, height: picture.height, alpha: false, in: directory)
        let output = directory.appendingPathComponent("picture.heic").path
        try StatedBoundCheck.run(heifEnc, ["-q", "50", png.path, "-o", output] + (picture.thumbnailItem ? ["-t", "160"] : []))
        return output
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: heifEnc), "needs heif-enc (libheif-examples)"))
    func peakBytesStayWithinTheStatedBound() async throws {
        await propertyCheck(count: 12, input: Self.pictures) { picture in
            await StatedBoundCheck.check(picture, box: picture.box, encode: { try Self.encode(picture, in: $0) }) {
                Self.statedBound(picture, fileBytes: $0, thumbnail: $1)
            }
        }
    }
}
