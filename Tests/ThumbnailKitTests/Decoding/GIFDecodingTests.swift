import Foundation
import TestSupport
import Testing
@testable import ThumbnailKit

/// GIF first frames, checked pixel by pixel against the generator's formulas
/// (TestImages/README.md, "GIF"; Pillow agreed with them when the files were
/// made), and the decoder's limits, errors, input paths and cancellation on GIFs.
@Suite struct GIFDecodingTests {
    typealias RGBA = (UInt8, UInt8, UInt8, UInt8)

    static let clear: RGBA = (0, 0, 0, 0)
    /// The generator's palette T: red, green, blue, yellow.
    static let paletteT: [RGBA] = [(255, 0, 0, 255), (0, 160, 0, 255), (0, 0, 255, 255), (255, 255, 0, 255)]

    /// The PNG matrix's palette formula, which the 256-entry GIFs share.
    static func paletteEntry(_ i: Int) -> RGBA {
        (UInt8((73 * i + 16) % 256), UInt8((151 * i + 64) % 256), UInt8((199 * i + 32) % 256), 255)
    }

    /// A first frame at `left, top` of `width × height` on a transparent screen, with
    /// `index` in frame coordinates through palette T.
    static func placed(left: Int, top: Int, width: Int, height: Int,
                       index: @escaping @Sendable (Int, Int) -> Int) -> @Sendable (Int, Int) -> RGBA {
        { x, y in
            (left..<left + width).contains(x) && (top..<top + height).contains(y) ? paletteT[index(x - left, y - top)] : clear
        }
    }

    /// A test image and the RGBA every screen pixel must have.
    struct Formula: Sendable, CustomStringConvertible {
        let file: String
        let width: Int
        let height: Int
        let pixel: @Sendable (Int, Int) -> RGBA
        var description: String { file }
    }

    static let blocks: @Sendable (Int, Int) -> RGBA = { x, y in
        let index = (x / 16 + 3 * (y / 16)) % 4
        return index == 0 ? clear : paletteT[index]
    }
    static let offset = placed(left: 30, top: 20, width: 24, height: 16) { x, y in (x / 4 + y / 4) % 4 }
    static let beyond = placed(left: 8, top: 6, width: 40, height: 30) { x, y in (x + y) % 4 }

    static let formulas: [Formula] = [
        Formula(file: "gif-palette-67x43.gif", width: 67, height: 43) { x, y in paletteEntry((x + 3 * y) % 256) },
        Formula(file: "gif-palette-interlaced-67x43.gif", width: 67, height: 43) { x, y in paletteEntry((x + 3 * y) % 256) },
        Formula(file: "gif-transparent-index-48x32.gif", width: 48, height: 32) { x, y in
            let index = (x / 8 + y / 8) % 4
            return index == 1 ? clear : paletteT[index]
        },
        Formula(file: "gif-animated-3-frames-40x30.gif", width: 40, height: 30) { x, _ in
            (x / 4) % 2 == 0 ? (255, 0, 0, 255) : (0, 0, 255, 255)
        },
        Formula(file: "gif-offset-frame-64x48.gif", width: 64, height: 48, pixel: offset),
        Formula(file: "gif-offset-frame-interlaced-64x48.gif", width: 64, height: 48, pixel: offset),
        Formula(file: "gif-frame-beyond-screen-32x24.gif", width: 32, height: 24, pixel: beyond),
        Formula(file: "gif-frame-beyond-screen-interlaced-32x24.gif", width: 32, height: 24, pixel: beyond),
        Formula(file: "gif-local-palette-32x32.gif", width: 32, height: 32) { x, y in paletteT[(x / 8 + y / 8) % 4] },
        Formula(file: "gif-no-palette-16x16.gif", width: 16, height: 16) { x, y in
            let gray = UInt8(x + 16 * y)
            return (gray, gray, gray, 255)
        },
        Formula(file: "gif-index-beyond-palette-16x8.gif", width: 16, height: 8) { x, _ in x % 8 < 4 ? paletteT[x % 8] : clear },
        Formula(file: "gif-blocks-1200x800.gif", width: 1200, height: 800, pixel: blocks),
        Formula(file: "gif-blocks-interlaced-1200x800.gif", width: 1200, height: 800, pixel: blocks),
    ]

    /// The full-size decode as an image the test helpers can downscale.
    static func image(of thumbnail: Thumbnail) -> RGBAImage {
        RGBAImage(width: thumbnail.width, height: thumbnail.height) { x, y in
            let p = thumbnail.pixel(x: x, y: y)
            return (p.r, p.g, p.b, p.a)
        }
    }

    /// The pixels of `thumbnail` that differ from `formula`, and the first of them in words.
    static func mismatches(of thumbnail: Thumbnail, from formula: Formula) -> (count: Int, first: String?) {
        var count = 0
        var first: String?
        for y in 0..<formula.height {
            for x in 0..<formula.width {
                let actual = thumbnail.pixel(x: x, y: y), expected = formula.pixel(x, y)
                // Where alpha is 0 the colour is not specified.
                let matches = expected.3 == 0 ? actual.a == 0 : (actual.r, actual.g, actual.b, actual.a) == expected
                if !matches {
                    count += 1
                    first = first ?? "(\(x), \(y)) is \(actual), not \(expected)"
                }
            }
        }
        return (count, first)
    }

    @Test(arguments: formulas)
    func theFirstFrameOnATransparentScreenDecodesToItsFormula(formula: Formula) async throws {
        // Off the cooperative pool: a megapixel comparison takes a while in a debug build.
        let (thumbnail, mismatches) = try await runBlocking {
            let thumbnail = try ThumbnailDecoder(size: .original).decode(contentsOfFile: Fixtures.testImage(formula.file))
            let sizeMatches = thumbnail.width == formula.width && thumbnail.height == formula.height
            return (thumbnail, sizeMatches ? Self.mismatches(of: thumbnail, from: formula) : (-1, "the size"))
        }
        #expect(thumbnail.source.format == .gif)
        #expect(thumbnail.width == formula.width && thumbnail.height == formula.height)
        #expect(mismatches.count == 0, "\(formula): \(mismatches.count) pixels differ, first \(mismatches.first ?? "")")
    }

    @Test(arguments: ["gif-palette-67x43.gif", "gif-transparent-index-48x32.gif", "gif-offset-frame-interlaced-64x48.gif",
                      "gif-frame-beyond-screen-32x24.gif", "gif-index-beyond-palette-16x8.gif"])
    func aThumbnailIsTheAreaDownscaleOfTheFullSizeFrame(file: String) throws {
        let path = Fixtures.testImage(file)
        let full = Self.image(of: try ThumbnailDecoder(size: .original).decode(contentsOfFile: path))
        for size in [ThumbnailSize.fit(31), .fit(7), .fit(width: 5, height: 40), .fit(1)] {
            let thumbnail = try ThumbnailDecoder(size: size).decode(contentsOfFile: path)
            let reference = full.areaDownscaled(toWidth: thumbnail.width, height: thumbnail.height)
            #expect(thumbnail.maximumDifference(from: reference) <= 1, "\(file) at \(size)")
        }
    }

    @Test(arguments: [("gif-palette-interlaced-67x43.gif", "gif-palette-67x43.gif"),
                      ("gif-offset-frame-interlaced-64x48.gif", "gif-offset-frame-64x48.gif"),
                      ("gif-frame-beyond-screen-interlaced-32x24.gif", "gif-frame-beyond-screen-32x24.gif"),
                      ("gif-blocks-interlaced-1200x800.gif", "gif-blocks-1200x800.gif")])
    func anInterlacedFrameDecodesExactlyLikeItsSequentialTwin(interlaced: String, sequential: String) async throws {
        let sizes = [ThumbnailSize.original, .fit(256), .fit(33), .fit(width: 7, height: 50)]
        // Off the cooperative pool: four megapixel decodes and comparisons take seconds in a debug build.
        let outcomes = try await runBlocking {
            try sizes.map { size in
                let decoder = ThumbnailDecoder(size: size)
                let passes = try decoder.decode(contentsOfFile: Fixtures.testImage(interlaced))
                let rows = try decoder.decode(contentsOfFile: Fixtures.testImage(sequential))
                let sameSize = passes.width == rows.width && passes.height == rows.height
                return (size: size, progressive: (passes.source.isProgressive, rows.source.isProgressive),
                        sameSize: sameSize, difference: sameSize ? passes.maximumDifference(from: rows) : -1)
            }
        }
        for outcome in outcomes {
            #expect(outcome.progressive == (true, false))
            #expect(outcome.sameSize && outcome.difference == 0, "\(interlaced) at \(outcome.size)")
        }
    }

    @Test func theHeaderSaysAlphaWhenTheFrameHasATransparentIndexOrLeavesPartOfTheScreenUncovered() throws {
        func header(_ file: String) throws -> ImageHeader {
            try ThumbnailDecoder().readHeader(try Fixtures.bytes(ofTestImage: file))
        }
        let cases: [(file: String, alpha: Bool, bitDepth: Int, progressive: Bool)] = [
            ("gif-palette-67x43.gif", false, 8, false),
            ("gif-transparent-index-48x32.gif", true, 2, false),
            ("gif-offset-frame-64x48.gif", true, 2, false),
            ("gif-frame-beyond-screen-interlaced-32x24.gif", true, 2, true),
            // The local palette (4 entries) decides the depth, not the global one (2).
            ("gif-local-palette-32x32.gif", false, 2, false),
            ("gif-no-palette-16x16.gif", false, 8, false),
            ("gif-animated-3-frames-40x30.gif", false, 2, false),
        ]
        for expected in cases {
            let read = try header(expected.file)
            #expect(read.format == .gif)
            #expect(read.hasAlpha == expected.alpha && read.components == (expected.alpha ? 4 : 3), "\(expected.file)")
            #expect(read.bitDepth == expected.bitDepth && read.isProgressive == expected.progressive, "\(expected.file)")
        }
        let beyond = try header("gif-frame-beyond-screen-32x24.gif")
        #expect((beyond.width, beyond.height) == (32, 24), "the logical screen, not the frame")
    }

    @Test func anAnimationShowsItsFirstFrameAndNoneOfTheOthers() throws {
        let thumbnail = try ThumbnailDecoder(size: .original).decode(
            contentsOfFile: Fixtures.testImage("gif-animated-3-frames-40x30.gif"))
        var colours = Set<[UInt8]>()
        for y in 0..<thumbnail.height {
            for x in 0..<thumbnail.width {
                let p = thumbnail.pixel(x: x, y: y)
                colours.insert([p.r, p.g, p.b, p.a])
            }
        }
        // Frame 2 is all green and frame 3 all white.
        #expect(colours == [[255, 0, 0, 255], [0, 0, 255, 255]])
    }

    @Test func bombsAreRefusedFromTheHeaderBeforeAnyRowIsDecoded() throws {
        let screen = "invalid/gif-bomb-screen-65535x65535.gif", frame = "invalid/gif-bomb-frame-65535x65535-on-16x16.gif"
        let screenRefusal = ThumbnailDecodingError.tooLarge("image is 65535x65535 (4294836225 pixels); the limit is 100000000 pixels")
        let frameRefusal = ThumbnailDecodingError.tooLarge(
            "GIF's first frame is 65535x65535 (4294836225 pixels); the limit is 100000000 pixels")
        for (file, refusal) in [(screen, screenRefusal), (frame, frameRefusal)] {
            #expect(try Fixtures.bytes(ofTestImage: file).count < 100)
            #expect(throws: refusal) { try ThumbnailDecoder().decode(contentsOfFile: Fixtures.testImage(file)) }
            #expect(throws: refusal) { try ThumbnailDecoder().readHeader(try Fixtures.bytes(ofTestImage: file)) }
        }
        // Without a pixel limit the frame's first row is decoded, and its data ends after one pixel:
        // the limit, not the data, refused it above.
        #expect {
            try ThumbnailDecoder(limits: DecodingLimits(maxPixels: nil)).decode(contentsOfFile: Fixtures.testImage(frame))
        } throws: { error in
            (error as? ThumbnailDecodingError)?.kind == "corrupt"
        }
    }

    @Test func aMegapixelFrameDecodesTo256PixelsWithoutAFullSizeBitmap() throws {
        let frameBytes = 1200 * 800 * 4
        for (file, bound) in [("gif-blocks-1200x800.gif", 512 << 10), ("gif-blocks-interlaced-1200x800.gif", 2 << 20)] {
            let path = Fixtures.testImage(file)
            let small = try ThumbnailDecoder(size: .fit(256)).decode(contentsOfFile: path)
            #expect(small.width == 256 && small.height == 171)
            // Rows and two accumulator rows (an interlaced frame: accumulators for the whole thumbnail).
            let peak = try #require(small.report?.peakDecodeBytes)
            #expect(peak < bound, "\(file): peak \(peak) bytes")
            // The counter is real: at full size the decode holds the frame.
            let full = try #require(try ThumbnailDecoder(size: .original).decode(contentsOfFile: path).report?.peakDecodeBytes)
            #expect(full >= frameBytes && peak < full / 2, "\(file): \(peak) at 256 px, \(full) at full size")
        }
    }

    @Test func everyCutBeforeTheEndOfTheFirstFrameIsTruncated() throws {
        let bytes = try Fixtures.bytes(ofTestImage: "gif-palette-67x43.gif")
        let decoder = ThumbnailDecoder()
        var kinds: [String: Int] = [:]
        // Cuts inside "GIF89a" no longer sniff as GIF; the trailer (the last byte) is not needed.
        for length in 6..<(bytes.count - 1) {
            do {
                _ = try decoder.decode(bytes.prefix(length))
                kinds["decodes", default: 0] += 1
            } catch let error as ThumbnailDecodingError {
                kinds[error.kind, default: 0] += 1
            }
        }
        #expect(kinds == ["truncated": bytes.count - 7], "\(kinds)")
        #expect(try decoder.decode(bytes.dropLast()).width == 67)
        #expect(throws: ThumbnailDecodingError.truncated("GIF data ends after 1382 bytes, in row 16 of the first frame's 43")) {
            try decoder.decode(contentsOfFile: Fixtures.testImage("invalid/gif-error-truncated-mid-frame.gif"))
        }
    }

    @Test func damageIsCorruptWithAReason() throws {
        let cases = [
            ("invalid/gif-error-bad-lzw.gif", "GIF is corrupt in row 0 of the first frame's 8: Image is defective, decoding aborted"),
            ("invalid/gif-error-no-image.gif", "GIF has no image: its trailer comes before any frame"),
            ("invalid/gif-error-screen-0x16.gif", "GIF logical screen is 0x16"),
        ]
        for (file, message) in cases {
            #expect(throws: ThumbnailDecodingError.corrupt(message)) {
                try ThumbnailDecoder().decode(contentsOfFile: Fixtures.testImage(file))
            }
        }
    }

    @Test(arguments: TestImagesManifest.entries.filter { $0.format == "gif" })
    func fileMemoryAndDescriptorDecodesAgree(entry: TestImageEntry) throws {
        let bytes = try Fixtures.bytes(atPath: entry.path)
        // The image inside a larger file, as a cache entry holds it: junk before and after.
        let temporary = try TemporaryDirectory()
        let container = temporary.path("container")
        let before = [UInt8](repeating: 0x47, count: 1000), after = [UInt8](repeating: 0x3B, count: 300)
        try Data(before + bytes + after).write(to: URL(fileURLWithPath: container))
        let descriptor = open(container, O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }

        let decoder = ThumbnailDecoder(size: .fit(40))
        let results = [
            Result { try decoder.decode(bytes) },
            Result { try decoder.decode(contentsOfFile: entry.path) },
            Result { try decoder.decode(FileRegion(descriptor: descriptor, offset: before.count, length: bytes.count)) },
        ]
        for result in results.dropFirst() {
            switch (results[0], result) {
            case let (.success(a), .success(b)):
                #expect(a.maximumDifference(from: b) == 0 && a.source == b.source, "\(entry)")
            case let (.failure(a), .failure(b)):
                #expect("\(a)" == "\(b)", "\(entry)")
            default:
                Issue.record("\(entry): \(results[0]) vs \(result)")
            }
        }
    }

    // Cancelling between those looks stops the decode: LimitsAndCancellationTests, with these files among its photos.
    @Test(arguments: ["gif-blocks-1200x800.gif", "gif-blocks-interlaced-1200x800.gif",
                      "gif-offset-frame-64x48.gif", "gif-frame-beyond-screen-32x24.gif"])
    func theDecodeLooksAtTheCancelTokenEvery32Rows(file: String) throws {
        let thumbnail = try ThumbnailDecoder(size: .original).decode(contentsOfFile: Fixtures.testImage(file))
        let checkpoints = LimitsAndCancellationTests.Checkpoints()
        _ = try ThumbnailDecoder().decode(contentsOfFile: Fixtures.testImage(file),
                                          cancellation: DecodeCancellation(checkpoint: checkpoints.arrive))
        // Screen rows, transparent or from the frame, and frame rows decoded off the screen all count.
        let beyondTheScreen = file.contains("beyond-screen") ? 30 - (thumbnail.height - 6) : 0
        #expect(checkpoints.passed == (thumbnail.height + beyondTheScreen + 31) / 32, "\(file)")
    }
}
