import TestSupport
import Testing
import ThumbnailKit

/// JPEG: DCT scale choice, colour spaces, progressive scan skipping, restart
/// markers, arithmetic coding and odd sizes.
@Suite struct JPEGDecodingTests {
    /// The gradient the generator draws: R = ⌊255x/(W−1)⌋, G = ⌊255y/(H−1)⌋, B = 255 − ⌊(R+G)/2⌋.
    static func gradient(width: Int, height: Int) -> RGBAImage {
        RGBAImage(width: width, height: height) { x, y in
            let r = width > 1 ? 255 * x / (width - 1) : 0
            let g = height > 1 ? 255 * y / (height - 1) : 0
            return (UInt8(r), UInt8(g), UInt8(255 - (r + g) / 2), 255)
        }
    }

    static let gradientFiles = [
        "jpeg-baseline-420-gradient-256x192.jpg", "jpeg-baseline-422-gradient-256x192.jpg",
        "jpeg-baseline-444-gradient-256x192.jpg", "jpeg-progressive-420-gradient-256x192.jpg",
        "jpeg-progressive-444-gradient-256x192.jpg", "jpeg-restart-interval-gradient-256x192.jpg",
        "jpeg-arithmetic-gradient-256x192.jpg", "jpeg-optimized-huffman-gradient-256x192.jpg",
    ]

    @Test(arguments: gradientFiles)
    func everyEncodingDecodesToTheGradientAtEveryScale(file: String) throws {
        let reference = Self.gradient(width: 256, height: 192)
        for (box, scale) in [(32, 1), (64, 2), (100, 4), (256, 8), (40, 2)] {
            let thumbnail = try ThumbnailDecoder(size: .fit(box)).decode(contentsOfFile: Fixtures.testImage(file))
            #expect(thumbnail.report?.scaleNumerator == scale, "\(file) at \(box)")
            #expect(thumbnail.width == box && thumbnail.height == (box * 192 + 128) / 256)
            let expected = reference.areaDownscaled(toWidth: thumbnail.width, height: thumbnail.height)
            // Lossy q90 plus DCT scaling: a few levels, never a wrong picture.
            #expect(thumbnail.maximumDifference(from: expected) <= 8, "\(file) at \(box)")
        }
    }

    @Test func blocksOnTheDCTGridComeOutAsTheirColoursAtOneEighth() throws {
        let thumbnail = try ThumbnailDecoder(size: .fit(32)).decode(
            contentsOfFile: Fixtures.testImage("ref-blocks-256x192-q100-444.jpg"))
        #expect(thumbnail.report?.scaleNumerator == 1)
        #expect(thumbnail.width == 32 && thumbnail.height == 24)
        var worst = 0
        for by in 0..<24 {
            for bx in 0..<32 {
                let p = thumbnail.pixel(x: bx, y: by)
                let expected = [8 * bx + 4, 10 * by + 5, 255 - 4 * (bx + by)]
                worst = max(worst, zip([p.r, p.g, p.b].map(Int.init), expected).map { abs($0 - $1) }.max()!)
            }
        }
        #expect(worst <= 2)
    }

    @Test(arguments: ["jpeg-gray-baseline-256x192.jpg", "jpeg-gray-progressive-256x192.jpg"])
    func grayscaleDecodesToEqualChannels(file: String) throws {
        let thumbnail = try ThumbnailDecoder(size: .fit(64)).decode(contentsOfFile: Fixtures.testImage(file))
        let reference = Self.gradient(width: 256, height: 192)
        #expect(thumbnail.width == 64 && thumbnail.height == 48)
        for y in 0..<48 {
            for x in 0..<64 {
                let p = thumbnail.pixel(x: x, y: y)
                #expect(p.r == p.g && p.g == p.b && p.a == 255)
                // L = ⌊(R + G)/2⌋ of the gradient, averaged over the 4×4 block it covers.
                let sample = reference.pixel(x: x * 4 + 2, y: y * 4 + 2)
                #expect(abs(Int(p.r) - (Int(sample.r) + Int(sample.g)) / 2) <= 8)
            }
        }
    }

    @Test func adobeCMYKConvertsToTheExpectedColours() throws {
        let thumbnail = try ThumbnailDecoder(size: .original).decode(
            contentsOfFile: Fixtures.testImage("jpeg-cmyk-adobe-blocks-128x64.jpg"))
        #expect(thumbnail.width == 128 && thumbnail.height == 64)
        let expected: [[(Int, Int, Int)]] = [
            [(0, 255, 255), (255, 0, 255), (255, 255, 0), (0, 0, 0)],
            [(255, 255, 255), (0, 0, 255), (127, 127, 127), (0, 255, 0)],
        ]
        for row in 0..<2 {
            for column in 0..<4 {
                let p = thumbnail.pixel(x: column * 32 + 16, y: row * 32 + 16)
                let e = expected[row][column]
                #expect(abs(Int(p.r) - e.0) <= 3 && abs(Int(p.g) - e.1) <= 3 && abs(Int(p.b) - e.2) <= 3,
                        "block (\(column), \(row)) is \(p), expected \(e)")
            }
        }
    }

    @Test(arguments: [("jpeg-odd-1x1.jpg", 1, 1), ("jpeg-odd-17x13.jpg", 17, 13), ("jpeg-odd-333x1.jpg", 256, 1)])
    func oddSizesDecode(file: String, width: Int, height: Int) throws {
        let thumbnail = try ThumbnailDecoder().decode(contentsOfFile: Fixtures.testImage(file))
        #expect(thumbnail.width == width && thumbnail.height == height)
    }

    /// A 9000×5 strip to 256×1. At 1/8 its 5 rows would be one, the DC of a block whose other
    /// 3 rows are the encoder's padding; the decoder keeps 8 px a side (here all 5 rows) instead,
    /// so the thumbnail matches a full decode put through the area filter.
    @Test func aThinStripKeepsEveryRowAndMatchesAFullDecode() throws {
        let path = Fixtures.testImage("jpeg-strip-9000x5.jpg")
        let thumbnail = try ThumbnailDecoder(size: .fit(256)).decode(contentsOfFile: path)
        #expect(thumbnail.width == 256 && thumbnail.height == 1)
        #expect(thumbnail.report?.scaleNumerator == 8)
        let full = try ThumbnailDecoder(size: .original).decode(contentsOfFile: path)
        let reference = try full.downscaled(toWidth: 256, height: 1)
        let psnr = thumbnail.peakSignalToNoiseRatio(against: reference)
        print("9000×5 strip to 256×1: PSNR \(psnr) dB against a full decode and the area filter")
        #expect(psnr >= 40, "PSNR \(psnr) dB against a full decode and the area filter")
    }

    @Test func theScaleIsTheSmallestThatStillCoversTheBox() throws {
        let photo = try #require(TestImagesManifest.entry(prefix: "photo-", containing: "baseline"))
        let header = try #require(photo.header)
        for (box, scale) in [(256, 1), (header.width / 8 + 1, 2), (header.width / 4 + 1, 4), (header.width / 2 + 1, 8)] {
            let thumbnail = try ThumbnailDecoder(size: .fit(box)).decode(contentsOfFile: photo.path)
            #expect(thumbnail.report?.scaleNumerator == scale, "box \(box)")
            #expect(thumbnail.width == box, "box \(box)")
        }
    }

    @Test(arguments: TestImagesManifest.entries.filter { $0.format == "jpeg" && $0.expect == "decodes" && $0.header?.progressive == true })
    func skippingUnneededScansGivesTheSamePixelsAsTheFullDecode(entry: TestImageEntry) throws {
        for box in [16, 32, 64, 128, 256] {
            let skipping = try ThumbnailDecoder(size: .fit(box), progressivePath: .skippingScans).decode(contentsOfFile: entry.path)
            let full = try ThumbnailDecoder(size: .fit(box), progressivePath: .libjpeg).decode(contentsOfFile: entry.path)
            #expect(full.report?.skippedScans == false)
            // With the standard scan script only the 1×1 IDCT at 1/8 leaves whole scans unread.
            if skipping.report?.scaleNumerator == 1 {
                #expect(skipping.report?.skippedScans == true, "\(entry) at \(box)")
            }
            #expect(skipping.maximumDifference(from: full) == 0, "\(entry) at \(box)")
        }
    }

    @Test func aProgressivePhotoSkipsScansAtOneEighth() throws {
        let photo = try #require(TestImagesManifest.entry(prefix: "photo-", containing: "progressive"))
        let thumbnail = try ThumbnailDecoder(size: .fit(256)).decode(contentsOfFile: photo.path)
        #expect(thumbnail.source.isProgressive && thumbnail.report?.skippedScans == true)
        #expect(thumbnail.report?.scaleNumerator == 1)
    }
}
