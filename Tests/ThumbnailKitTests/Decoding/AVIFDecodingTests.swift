import Foundation
import PropertyBased
import TestSupport
import Testing
@testable import ThumbnailKit

/// AVIF through libavif and dav1d: YUV rows into the area filter, the libraries' whole-frame
/// memory known from the header and refused past the limit, and the bound ct_avif_decode.c
/// states held on pictures avifenc makes at random sizes. Pixels against avifdec are in
/// ReferenceDecoderTests, irot/imir in OrientationTests, libavif's own files in
/// ModernFormatsConformanceTests.
@Suite struct AVIFDecodingTests {
    static let photo = "avif-photo-420-1024x683.avif"
    static let avifenc = "/usr/bin/avifenc"

    /// What avifenc is asked to make, and the box it is decoded into.
    struct Picture: Sendable, CustomStringConvertible {
        let width: Int, height: Int, tenBits: Bool, fullChroma: Bool, alpha: Bool, box: Int
        var description: String {
            "\(width)x\(height) \(tenBits ? 10 : 8)-bit \(fullChroma ? "4:4:4" : "4:2:0")\(alpha ? " alpha" : "") into \(box)"
        }
    }

    static let pictures = zip(Gen.int(in: 1...700), Gen.int(in: 1...700), Gen.int(in: 0...7), Gen.int(in: 1...300))
        .map { width, height, kind, box in
            Picture(width: width, height: height, tenBits: kind & 1 != 0, fullChroma: kind & 2 != 0,
                    alpha: kind & 4 != 0, box: box)
        }

    /// The bound ct_avif_decode.c states, computed here from what was encoded: for each AV1 frame
    /// (colour, and alpha) of size W′ × H′ rounded up to 128, b bytes a sample and chroma
    /// fraction c, dav1d's picture (b·W′ + 64)·H′·(1 + c) + 64 and state W′·H′/2 + 128·b·(3 + c)·W′
    /// + 512 KiB; then 64 KiB of libavif's boxes, libavif's copy of the AV1 data and our read
    /// buffer (at most the file, S, each: 3·S with the look at the meta box), an RGBA row, the
    /// resampler (64 bytes a source column, 16 a thumbnail column) and the thumbnail twice.
    static func statedBound(_ picture: Picture, fileBytes: Int, thumbnail: Thumbnail) -> Int {
        let alignedWidth = (picture.width + 127) / 128 * 128, alignedHeight = (picture.height + 127) / 128 * 128
        let sampleBytes = picture.tenBits ? 2 : 1
        func frame(chroma: Double) -> Int {
            let picture = Double(sampleBytes * alignedWidth + 64) * Double(alignedHeight) * (1 + chroma) + 64
            let state = Double(alignedWidth * alignedHeight) / 2 + 128 * Double(sampleBytes) * (3 + chroma) * Double(alignedWidth)
                + 512 * 1024
            return Int((picture + state).rounded(.up))
        }
        let library = frame(chroma: picture.fullChroma ? 2 : 0.5) + (picture.alpha ? frame(chroma: 0) : 0) + 64 * 1024
        let ours = 3 * fileBytes + 4 * picture.width + 64 * picture.width + 16 * thumbnail.width
            + 8 * thumbnail.width * thumbnail.height
        return library + ours
    }

    /// A picture of the requested size, encoded by avifenc at its fastest speed.
    static func encode(_ picture: Picture, in directory: URL) throws -> String {
        let png = try StatedBoundCheck.patternPNG(width: picture.width, height: picture.height, alpha: picture.alpha,
                                                  in: directory)
        let output = directory.appendingPathComponent("picture.avif").path
        try StatedBoundCheck.run(avifenc, ["-s", "10", "-j", "1", "-d", picture.tenBits ? "10" : "8",
                                           "-y", picture.fullChroma ? "444" : "420", png.path, output])
        return output
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: avifenc), "needs avifenc (libavif-bin)"))
    func peakBytesStayWithinTheStatedBound() async throws {
        await propertyCheck(count: 16, input: Self.pictures) { picture in
            await StatedBoundCheck.check(picture, box: picture.box, encode: { try Self.encode(picture, in: $0) }) {
                Self.statedBound(picture, fileBytes: $0, thumbnail: $1)
            }
        }
    }

    @Test func theLibrariesFramesAreCountedFromTheHeaderAndRefusedPastTheLimit() throws {
        let path = Fixtures.testImage(Self.photo)
        let header = try ThumbnailDecoder().readHeader(Fixtures.bytes(atPath: path))
        // 1024×683 8-bit 4:2:0: dav1d's picture alone is 1.5 bytes a pixel of the aligned 1024×768.
        #expect(header.wholeImageBytes > 1024 * 768 * 3 / 2)
        #expect(header.wholeImageBytes < 4 * 1024 * 1024)
        let limited = ThumbnailDecoder(limits: DecodingLimits(maxDecoderMemory: 1024 * 1024))
        #expect {
            try limited.decode(contentsOfFile: path)
        } throws: { error in
            guard case ThumbnailDecodingError.tooLarge(let message) = error else { return false }
            return message.contains("AVIF") && message.contains("bytes") && message.contains("1 MiB")
        }
        let decoded = try ThumbnailDecoder().decode(contentsOfFile: path)
        #expect(decoded.width == 256 && decoded.height == 171)
        #expect(try #require(decoded.report?.peakDecodeBytes) >= header.wholeImageBytes)
    }
}
