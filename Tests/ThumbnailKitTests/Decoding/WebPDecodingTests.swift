import Foundation
import TestSupport
import Testing
@testable import ThumbnailKit

/// WebP through libwebp: lossy, lossless and alpha decoded straight to the
/// thumbnail's size by libwebp's scaler, EXIF orientation, an animation's
/// first frame, limits, damage and the memory a 24-megapixel decode holds.
/// The files are described in TestImages/README.md. Cancellation between
/// slices is in LimitsAndCancellationTests, the EXIF chunk's upright marker
/// pictures in OrientationTests, the formats corpus in WebPConformanceTests.
@Suite struct WebPDecodingTests {
    static let lossy = "webp-lossy-gradient-256x192.webp"
    static let lossless = "webp-lossless-blocks-256x192.webp"
    static let losslessAlpha = "webp-lossless-rgba-67x43.webp"
    static let lossyAlpha = "webp-lossy-alpha-vignette-256x192.webp"
    static let large = "webp-lossy-gradient-6000x4000.webp"
    static let offsetAnimation = "webp-animated-offset-first-frame-100x80.webp"
    static let lossyAnimation = "webp-animated-lossy-2-frames-128x96.webp"

    /// The project's own answer: the whole image decoded at its size, then the area filter.
    static func areaFilterReference(_ path: String, width: Int, height: Int) throws -> Thumbnail {
        let full = try ThumbnailDecoder(size: .original, appliesOrientation: false).decode(contentsOfFile: path)
        return try full.downscaled(toWidth: width, height: height)
    }

    /// Per-channel differences of two same-size thumbnails, colour premultiplied by
    /// alpha (colour under transparent pixels is unspecified): the largest and the mean.
    static func premultipliedDifference(_ a: Thumbnail, _ b: Thumbnail) -> (max: Int, mean: Double) {
        precondition(a.width == b.width && a.height == b.height)
        var largest = 0, total = 0
        for offset in stride(from: 0, to: a.pixels.count, by: 4) {
            let alphaA = Int(a.pixels[offset + 3]), alphaB = Int(b.pixels[offset + 3])
            for channel in 0..<3 {
                let difference = abs(Int(a.pixels[offset + channel]) * alphaA - Int(b.pixels[offset + channel]) * alphaB) / 255
                largest = max(largest, difference)
                total += difference
            }
            largest = max(largest, abs(alphaA - alphaB))
            total += abs(alphaA - alphaB)
        }
        return (largest, Double(total) / Double(a.pixels.count))
    }

    // MARK: - Pixels

    /// (file, box, largest difference allowed, mean allowed). libwebp's scaler is an
    /// area filter too; it averages a lossy frame's Y, U and V planes (chroma at half
    /// resolution) where the reference averages RGB from the upsampled chroma, which
    /// moves smooth colour by a few levels; lossless frames it scales premultiplied, as we do.
    static let againstTheAreaFilter: [(String, Int, Int, Double)] = [
        (lossy, 64, 4, 1), (lossy, 100, 4, 1), (lossy, 37, 4, 1),
        (lossless, 100, 1, 0.2), (lossless, 37, 1, 0.2), (losslessAlpha, 37, 1, 0.2),
        (lossyAlpha, 64, 4, 1), (lossyAlpha, 37, 4, 1), (lossyAnimation, 37, 4, 1), (large, 256, 4, 1),
    ]

    @Test(arguments: againstTheAreaFilter)
    func aThumbnailMatchesAFullDecodeThroughTheAreaFilter(file: String, box: Int, largest: Int, mean: Double) throws {
        let path = Fixtures.testImage(file)
        let thumbnail = try ThumbnailDecoder(size: .fit(box)).decode(contentsOfFile: path)
        let reference = try Self.areaFilterReference(path, width: thumbnail.width, height: thumbnail.height)

        let difference = Self.premultipliedDifference(thumbnail, reference)
        #expect(difference.max <= largest && difference.mean <= mean,
                "\(file) at \(box): max \(difference.max), mean \(difference.mean)")
    }

    @Test func losslessBlocksScaledByEightAreExactlyTheirColours() throws {
        let thumbnail = try ThumbnailDecoder(size: .fit(width: 32, height: 24)).decode(
            contentsOfFile: Fixtures.testImage(Self.lossless))
        #expect(thumbnail.width == 32 && thumbnail.height == 24)
        for y in 0..<24 {
            for x in 0..<32 {
                let p = thumbnail.pixel(x: x, y: y)
                #expect([p.r, p.g, p.b, p.a] == [UInt8(8 * x + 4), UInt8(10 * y + 5), UInt8(255 - 4 * (x + y)), 255],
                        "block (\(x), \(y))")
            }
        }
    }

    @Test func losslessAlphaDecodesToTheExactPixels() throws {
        let thumbnail = try ThumbnailDecoder(size: .original).decode(contentsOfFile: Fixtures.testImage(Self.losslessAlpha))
        let expected = RGBAImage(width: 67, height: 43) { x, y in
            (UInt8((4 * x + y) % 256), UInt8((x + 4 * y) % 256), UInt8(((255 - 2 * x - 2 * y) % 256 + 256) % 256),
             UInt8(255 - (5 * x + 3 * y) % 192))
        }
        #expect(thumbnail.maximumDifference(from: expected) == 0)
        #expect(thumbnail.hasAlpha && thumbnail.source.components == 4)
    }

    // MARK: - Animation

    @Test func anAnimationShowsItsFirstFrameOnATransparentCanvas() throws {
        let path = Fixtures.testImage(Self.offsetAnimation)
        // Red 40×30 at (20, 10) of 100×80; the second frame is blue everywhere.
        for (box, scale) in [(256, 1), (50, 2)] {
            let thumbnail = try ThumbnailDecoder(size: .fit(box)).decode(contentsOfFile: path)
            #expect(thumbnail.width == 100 / scale && thumbnail.height == 80 / scale)
            let expected = RGBAImage(width: 100 / scale, height: 80 / scale) { x, y in
                (20..<60).contains(x * scale) && (10..<40).contains(y * scale) ? (255, 0, 0, 255) : (0, 0, 0, 0)
            }
            #expect(thumbnail.maximumDifference(from: expected) == 0, "at \(box)")
            #expect(thumbnail.hasAlpha)
        }
    }

    @Test func aFrameScaledByAnOddRatioLandsOnItsRoundedRectangle() throws {
        // 100×80 into 30×24 (×0.3): x 20…60 → 6…18, y 10…40 → 3…12.
        let thumbnail = try ThumbnailDecoder(size: .fit(30)).decode(contentsOfFile: Fixtures.testImage(Self.offsetAnimation))
        #expect(thumbnail.width == 30 && thumbnail.height == 24)
        let expected = RGBAImage(width: 30, height: 24) { x, y in
            (6..<18).contains(x) && (3..<12).contains(y) ? (255, 0, 0, 255) : (0, 0, 0, 0)
        }
        #expect(thumbnail.maximumDifference(from: expected) == 0)
    }

    @Test func aLossyAnimationShowsItsFirstFrameNotTheSecond() throws {
        // Frame 1 is the gradient (blue top-left corner, R = G = 0), frame 2 its inverse (yellow there).
        let thumbnail = try ThumbnailDecoder(size: .original).decode(contentsOfFile: Fixtures.testImage(Self.lossyAnimation))
        let corner = thumbnail.pixel(x: 0, y: 0)
        #expect(corner.r < 16 && corner.g < 16 && corner.b > 239, "\(corner)")
        #expect(thumbnail.source.width == 128 && thumbnail.source.height == 96)
    }

    // MARK: - Orientation (the EXIF chunk's marker files are in OrientationTests)

    @Test func orientationIsReportedAndCanBeLeftAlone() throws {
        let path = Fixtures.testImage("webp-exif-orientation-6-mm.webp")
        let stored = try ThumbnailDecoder(appliesOrientation: false).decode(contentsOfFile: path)
        #expect(stored.width == 64 && stored.height == 96)
        #expect(stored.source.orientation == 6)
        #expect(OrientationTests.colour(stored.pixel(x: 12, y: 84)) == "red", "stored with red bottom-left")
        #expect(try ThumbnailDecoder().readHeader(try Fixtures.bytes(atPath: path)).orientation == 6)
    }

    // MARK: - Limits

    @Test func aHugeCanvasIsRefusedFromItsHeader() throws {
        for (name, message) in [
            ("invalid/webp-error-vp8x-canvas-60000x60000.webp", LimitsAndCancellationTests.sixtyThousandSquare),
            ("invalid/webp-error-vp8l-16384x16384.webp",
             .tooLarge("image is 16384x16384 (268435456 pixels); the limit is 100000000 pixels")),
        ] {
            let path = Fixtures.testImage(name)
            #expect(throws: message) { try ThumbnailDecoder().decode(contentsOfFile: path) }
            #expect(throws: message) { try ThumbnailDecoder().decode(try Fixtures.bytes(atPath: path)) }
            #expect(throws: message) { try ThumbnailDecoder().readHeader(try Fixtures.bytes(atPath: path)) }
        }
    }

    @Test func theSizeLimitsApplyToTheCanvas() throws {
        let path = Fixtures.testImage(Self.large)
        #expect(throws: ThumbnailDecodingError.tooLarge("image is 6000x4000 (24000000 pixels); the limit is 23999999 pixels")) {
            try ThumbnailDecoder(limits: DecodingLimits(maxPixels: 23_999_999)).decode(contentsOfFile: path)
        }
        #expect(throws: ThumbnailDecodingError.tooLarge("image is 6000 px wide; the limit is 5999")) {
            try ThumbnailDecoder(limits: DecodingLimits(maxWidth: 5999)).decode(contentsOfFile: path)
        }
        #expect(try ThumbnailDecoder(limits: DecodingLimits(maxWidth: 6000, maxHeight: 4000, maxPixels: 24_000_000))
            .decode(contentsOfFile: path).width == 256)
    }

    @Test func aLosslessFrameThatNeedsMoreWorkingMemoryThanAllowedIsRefused() throws {
        let path = Fixtures.testImage(Self.lossless)
        // libwebp keeps a lossless frame's whole ARGB image: 256 × 192 × 4 bytes, beside the file held whole.
        let needed = 256 * 192 * 4 + (try Fixtures.bytes(atPath: path).count)
        #expect(throws: ThumbnailDecodingError.tooLarge(
            "WebP lossless frame of 256x192 (libwebp keeps its ARGB image whole) needs \(needed) bytes (0.2 MiB) of "
                + "working memory, over the decoder memory limit of \(needed - 1) bytes "
                + "(--max-decoder-memory, DecodingLimits.maxDecoderMemory)")) {
            try ThumbnailDecoder(limits: DecodingLimits(maxDecoderMemory: needed - 1)).decode(contentsOfFile: path)
        }
        #expect(try ThumbnailDecoder(limits: DecodingLimits(maxDecoderMemory: needed)).decode(contentsOfFile: path).width == 256)
        // A lossy frame without alpha keeps nothing that large: a tiny budget is enough.
        #expect(try ThumbnailDecoder(limits: DecodingLimits(maxDecoderMemory: 4096)).decode(
            contentsOfFile: Fixtures.testImage(Self.lossy)).width == 256)
        // A lossy frame's alpha is compressed losslessly here: up to 5 bytes a pixel.
        #expect(throws: ThumbnailDecodingError.self) {
            try ThumbnailDecoder(limits: DecodingLimits(maxDecoderMemory: 256 * 192 * 5 - 1))
                .decode(contentsOfFile: Fixtures.testImage(Self.lossyAlpha))
        }
    }

    @Test func aFileLargerThanTheWorkingMemoryLimitIsNotReadIn() throws {
        let path = Fixtures.testImage(Self.large)
        let size = try Fixtures.bytes(atPath: path).count
        let tight = DecodingLimits(maxDecoderMemory: size - 1)
        // From a file the decoder must hold the whole container; from memory it reads it in place.
        #expect(throws: ThumbnailDecodingError.tooLarge(
            "WebP (held whole: libwebp decodes from memory) needs \(size) bytes (\(String(format: "%.1f", Double(size) / 0x1p20)) MiB) "
                + "of working memory, over the decoder memory limit of \(size - 1) bytes "
                + "(--max-decoder-memory, DecodingLimits.maxDecoderMemory)")) {
            try ThumbnailDecoder(limits: tight).decode(contentsOfFile: path)
        }
        #expect(try ThumbnailDecoder(limits: tight).decode(try Fixtures.bytes(atPath: path)).width == 256)
    }

    @Test func theLargeDecodeEstimateCountsLibwebpsWholeFrameBuffers() throws {
        let decoder = ThumbnailDecoder()
        func estimate(_ file: String) throws -> Int {
            decoder.wholeImageBufferBytes(for: try decoder.readHeader(try Fixtures.bytes(ofTestImage: file)))
        }
        #expect(try estimate(Self.lossless) == 256 * 192 * 4)
        #expect(try estimate(Self.lossyAlpha) == 256 * 192 * 5)
        #expect(try estimate(Self.lossy) == 0)
        #expect(try estimate(Self.large) == 0, "a lossy frame is never whole, whatever its size")
    }

    // MARK: - Damage

    @Test(arguments: [
        ("invalid/webp-error-truncated-half.webp", "truncated", "WebP data ends after 585 of the 1170 bytes its RIFF header announces"),
        ("invalid/webp-error-truncated-in-header.webp", "truncated", "WebP data ends after 16 bytes, before its first chunk"),
        ("invalid/webp-error-vp8-cut-sizes-rewritten.webp", "truncated", "WebP bitstream ends before the image does (584 bytes)"),
        ("invalid/webp-error-vp8l-bad-huffman.webp", "corrupt", "WebP bitstream is corrupt"),
        ("invalid/webp-error-vp8-partition-overrun.webp", "corrupt", "WebP container is invalid (chunk sizes or layout)"),
        ("invalid/webp-error-chunk-past-riff-end.webp", "corrupt", "WebP container is invalid (chunk sizes or layout)"),
    ])
    func damageIsReportedAsWhatItIs(file: String, kind: String, message: String) throws {
        let path = Fixtures.testImage(file)
        for result in [Result { try ThumbnailDecoder().decode(contentsOfFile: path) },
                       Result { try ThumbnailDecoder().decode(try Fixtures.bytes(atPath: path)) }] {
            #expect(throws: ThumbnailDecodingError.self) { try result.get() }
            guard case .failure(let error as ThumbnailDecodingError) = result else { continue }
            #expect(error.kind == kind && error.message == message, "\(file): \(error)")
        }
    }

    @Test(arguments: [lossy, lossless, lossyAlpha, offsetAnimation, "webp-exif-orientation-6-mm.webp"])
    func everyCutIsTruncatedNeverAPicture(file: String) throws {
        let bytes = try Fixtures.bytes(ofTestImage: file)
        for length in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 97)) {
            #expect { try ThumbnailDecoder().decode(bytes[..<length]) } throws: { error in
                // Under 12 bytes the RIFF signature is incomplete: not recognised as WebP at all.
                (error as? ThumbnailDecodingError)?.kind == (length < 12 ? "unsupportedFormat" : "truncated")
            }
        }
    }

    // MARK: - Inputs

    static let decodable = TestImagesManifest.entries.filter { $0.format == "webp" && $0.expect == "decodes" }

    @Test(arguments: decodable)
    func fileMemoryAndFileRegionDecodesAreIdentical(entry: TestImageEntry) throws {
        let bytes = try Fixtures.bytes(atPath: entry.path)
        let decoder = ThumbnailDecoder(size: .fit(64))
        let fromFile = try decoder.decode(contentsOfFile: entry.path)
        let fromMemory = try decoder.decode(bytes)
        // The image inside a larger file, with bytes before and after it (as in a cache entry).
        let directory = try TemporaryDirectory()
        let padded = directory.path("padded")
        try Data([UInt8](repeating: 0xA5, count: 1000) + bytes + [UInt8](repeating: 0x5A, count: 333))
            .write(to: URL(fileURLWithPath: padded))
        let descriptor = open(padded, O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let region = FileRegion(descriptor: descriptor, offset: 1000, length: bytes.count)
        let fromRegion = try decoder.decode(region)

        #expect(fromFile.maximumDifference(from: fromMemory) == 0)
        #expect(fromFile.maximumDifference(from: fromRegion) == 0)
        #expect(fromFile.source == fromMemory.source && fromFile.source == fromRegion.source)
        #expect(try decoder.readHeader(region) == fromFile.source)
        #expect(try decoder.readHeader(bytes) == fromFile.source, "the probe reports what the decode found")
        if let header = entry.header {
            #expect(fromFile.source.wholeImageBytesPerPixel == header.wholeImageBytesPerPixel)
        }
    }

    // MARK: - Memory

    @Test func a24MegapixelLossyFileDecodesWithoutItsFullFrame() async throws {
        let path = Fixtures.testImage(Self.large)
        let (fromFile, fromMemory) = try await runBlocking {
            (try ThumbnailDecoder().decode(contentsOfFile: path), try ThumbnailDecoder().decode(try Fixtures.bytes(atPath: path)))
        }
        #expect(fromFile.width == 256 && fromFile.height == 171)
        // The RGBA frame would be 96 MB and the YUV 4:2:0 frame libwebp decodes into 36 MB. What is
        // held: the 100 KB file, libwebp's row caches for 6000 columns (under 1 MB) and the thumbnail.
        // The process's real peak is measured in ThumbCommandTests.
        for thumbnail in [fromFile, fromMemory] {
            let peak = try #require(thumbnail.report?.peakDecodeBytes)
            #expect(peak < 2 << 20, "peak \(peak) bytes")
        }
    }

    @Test func decodingAtFullSizeCountsTheFrame() throws {
        // The estimate is real: at its own size the output is the frame.
        let path = Fixtures.testImage(Self.lossy)
        let full = try #require(try ThumbnailDecoder(size: .original).decode(contentsOfFile: path).report?.peakDecodeBytes)
        let small = try #require(try ThumbnailDecoder(size: .fit(32)).decode(contentsOfFile: path).report?.peakDecodeBytes)
        #expect(full >= 256 * 192 * 4)
        #expect(small < full / 2)
    }
}
