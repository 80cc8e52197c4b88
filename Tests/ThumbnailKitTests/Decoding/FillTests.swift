import TestSupport
import Testing
@testable import ThumbnailKit

/// `ThumbnailSize.fill`: exactly the box, the picture scaled to cover it and
/// its centre kept, after EXIF orientation; decoded at the smallest scale that
/// covers; a smaller source cropped, never upscaled.
@Suite struct FillTests {
    static let sources = [
        "photo-aitzgorri-baseline-3000x1998.jpg", "photo-friends-portrait-1000x1502.jpg",
        "photo-picosdeeuropa-progressive-2048x1536.jpg", "jpeg-progressive-420-photo-333x250.jpg",
        "photo-sunset-rgba-vignette-1024x683.png", "photo-life-adam7-rgb-640x480.png",
        "gif-blocks-1200x800.gif", "gif-blocks-interlaced-1200x800.gif",
        "webp-lossy-gradient-256x192.webp", "webp-lossless-blocks-256x192.webp",
    ]
    static let oddBoxes = [(101, 57), (57, 101), (33, 33)]

    @Test(arguments: sources)
    func theThumbnailIsExactlyTheBoxOnOddSizes(file: String) throws {
        for (width, height) in Self.oddBoxes {
            let thumbnail = try ThumbnailDecoder(size: .fill(width: width, height: height))
                .decode(contentsOfFile: Fixtures.testImage(file))
            #expect((thumbnail.width, thumbnail.height) == (width, height), "\(file) filling \(width)x\(height)")
            #expect(ThumbnailSize.fill(width: width, height: height)
                .fitting(width: thumbnail.source.width, height: thumbnail.source.height) == (width, height))
        }
    }

    /// 300×99: red where x < 99, blue where x ≥ 198, green between, with a
    /// white 27×27 square centred on the green band (x 135..<162, y 36..<63);
    /// transposed (99×300, red top, blue bottom) when `portrait`.
    static func bands(portrait: Bool) throws -> [UInt8] {
        let image = RGBAImage(width: portrait ? 99 : 300, height: portrait ? 300 : 99) { x, y in
            let (along, across) = portrait ? (y, x) : (x, y)
            if along < 99 { return (255, 0, 0, 255) }
            if along >= 198 { return (0, 0, 255, 255) }
            if (135..<162).contains(along) && (36..<63).contains(across) { return (255, 255, 255, 255) }
            return (0, 255, 0, 255)
        }
        return try image.png()
    }

    @Test(arguments: [false, true])
    func theCentreIsKeptAndTheCroppedBordersAreGone(portrait: Bool) throws {
        // 300×99 covers 33×33 at 100×33: 67 px too wide, 33 cut on the left
        // (source x < 99, the red band exactly) and 34 on the right (the blue
        // band). One pixel off to either side shows red or blue at an edge.
        let thumbnail = try ThumbnailDecoder(size: .fill(33)).decode(Self.bands(portrait: portrait))
        try #require((thumbnail.width, thumbnail.height) == (33, 33))
        var colours: [String: Int] = [:]
        for y in 0..<33 {
            for x in 0..<33 { colours[OrientationTests.colour(thumbnail.pixel(x: x, y: y)), default: 0] += 1 }
        }
        #expect(colours["red"] == nil && colours["blue"] == nil, "\(colours)")
        #expect(colours.keys.allSatisfy { $0 == "green" || $0 == "white" || $0.hasPrefix("other") }, "\(colours)")
        // Every edge pixel is pure green: no band blended in.
        for i in 0..<33 {
            for (x, y) in [(0, i), (32, i), (i, 0), (i, 32)] {
                let p = thumbnail.pixel(x: x, y: y)
                #expect(p.r == 0 && p.g == 255 && p.b == 0, "(\(x), \(y)) is \(p)")
            }
        }
        // The white marker sits at the centre (output 12...20 both ways), symmetric within the odd crop.
        #expect(OrientationTests.colour(thumbnail.pixel(x: 16, y: 16)) == "white")
        let whiteColumns = (0..<33).filter { OrientationTests.colour(thumbnail.pixel(x: $0, y: 16)) == "white" }
        let whiteRows = (0..<33).filter { OrientationTests.colour(thumbnail.pixel(x: 16, y: $0)) == "white" }
        #expect(whiteColumns == Array(12...20), "\(whiteColumns)")
        #expect(whiteRows == Array(12...20), "\(whiteRows)")
    }

    /// A JPEG stored `displayedHeight` wide and `displayedWidth` high with
    /// EXIF orientation 6 (turn 90° clockwise to display): upright it is red
    /// for x < a third, blue past two thirds, green between.
    static func rotatedJPEG(displayedWidth: Int, displayedHeight: Int) throws -> [UInt8] {
        let storedWidth = displayedHeight, storedHeight = displayedWidth
        let image = RGBAImage(width: storedWidth, height: storedHeight) { sx, sy in
            // Orientation 6 shows stored (sx, sy) at displayed (storedHeight - 1 - sy, sx).
            let x = storedHeight - 1 - sy
            if x < displayedWidth / 3 { return (255, 0, 0, 255) }
            if x >= 2 * displayedWidth / 3 { return (0, 0, 255, 255) }
            return (0, 255, 0, 255)
        }
        let jpeg = try ThumbnailEncoder(jpegQuality: 95).encode(rgba: image.bytes, width: storedWidth,
                                                               height: storedHeight, as: .jpeg)
        // APP1: "Exif\0\0", a big-endian TIFF header, one IFD entry: Orientation (0x0112), SHORT, 1, 6.
        let exif: [UInt8] = Array("Exif".utf8) + [0, 0, 0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1,
                                                   0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
        let app1: [UInt8] = [0xFF, 0xE1, UInt8((exif.count + 2) >> 8), UInt8((exif.count + 2) & 0xFF)] + exif
        return Array(jpeg[0..<2]) + app1 + Array(jpeg[2...])
    }

    @Test func theBoxAppliesToTheDisplayedPictureOfAnEXIFRotatedSource() throws {
        // Displayed 900×300 (stored 300×900): covers 101×57 at 171×57, 35 px cut on the left.
        let bytes = try Self.rotatedJPEG(displayedWidth: 900, displayedHeight: 300)
        let thumbnail = try ThumbnailDecoder(size: .fill(width: 101, height: 57)).decode(bytes)
        #expect(thumbnail.source.orientation == 6 && (thumbnail.source.width, thumbnail.source.height) == (300, 900))
        try #require((thumbnail.width, thumbnail.height) == (101, 57))
        // Cover columns 0..<57 red, 57..<114 green, 114..<171 blue; the crop starts at 35.
        for y in [2, 28, 54] {
            #expect(OrientationTests.colour(thumbnail.pixel(x: 2, y: y)) == "red")
            #expect(OrientationTests.colour(thumbnail.pixel(x: 18, y: y)) == "red")
            #expect(OrientationTests.colour(thumbnail.pixel(x: 26, y: y)) == "green")
            #expect(OrientationTests.colour(thumbnail.pixel(x: 50, y: y)) == "green")
            #expect(OrientationTests.colour(thumbnail.pixel(x: 75, y: y)) == "green")
            #expect(OrientationTests.colour(thumbnail.pixel(x: 83, y: y)) == "blue")
            #expect(OrientationTests.colour(thumbnail.pixel(x: 98, y: y)) == "blue")
        }
        // The other way up, the same box is 57 wide.
        let portrait = try ThumbnailDecoder(size: .fill(width: 57, height: 101)).decode(bytes)
        #expect((portrait.width, portrait.height) == (57, 101))
        #expect(OrientationTests.colour(portrait.pixel(x: 28, y: 50)) == "green")
    }

    @Test(arguments: ["jpeg-exif-orientation-6-mm.jpg", "webp-exif-orientation-6-mm.webp"])
    func theMarkerFilesFillTheirDisplayedBox(file: String) throws {
        // Upright 96×64 (stored 64×96): a 48×16 fill covers at 48×32 and keeps rows 8..<24.
        let thumbnail = try ThumbnailDecoder(size: .fill(width: 48, height: 16))
            .decode(contentsOfFile: Fixtures.testImage(file))
        try #require((thumbnail.width, thumbnail.height) == (48, 16))
        #expect(OrientationTests.colour(thumbnail.pixel(x: 4, y: 2)) == "red")
        #expect(OrientationTests.colour(thumbnail.pixel(x: 43, y: 2)) == "blue")
        #expect(OrientationTests.colour(thumbnail.pixel(x: 4, y: 13)) == "green")
        #expect(OrientationTests.colour(thumbnail.pixel(x: 43, y: 13)) == "white")
    }

    @Test func aSourceSmallerThanTheBoxIsCroppedNeverUpscaled() throws {
        let file = Fixtures.testImage("jpeg-exif-none-96x64.jpg")
        // 101×57 is wider than 96×64: the whole width, 96 × 57/101 = 54.2 rows of it.
        let wide = try ThumbnailDecoder(size: .fill(width: 101, height: 57)).decode(contentsOfFile: file)
        #expect((wide.width, wide.height) == (96, 54))
        let square = try ThumbnailDecoder(size: .fill(200)).decode(contentsOfFile: file)
        #expect((square.width, square.height) == (64, 64))
        #expect(ThumbnailSize.fill(200).fitting(width: 96, height: 64) == (64, 64))
        // The crop is at the source's own scale: the same pixels as the full decode's centre.
        let full = try ThumbnailDecoder(size: .original).decode(contentsOfFile: file)
        #expect(square.pixel(x: 0, y: 0) == full.pixel(x: 16, y: 0))
        #expect(square.pixel(x: 63, y: 63) == full.pixel(x: 79, y: 63))
    }

    @Test func aBigJPEGIsDecodedAtTheSmallestDCTScaleThatCoversTheFill() throws {
        let file = Fixtures.testImage("photo-aitzgorri-baseline-3000x1998.jpg")
        // Fitting 400×100 needs 150×100 (1/8 gives 375×250); covering it needs 400×266, so 1/4 (750×500).
        let fit = try ThumbnailDecoder(size: .fit(width: 400, height: 100)).decode(contentsOfFile: file)
        #expect(fit.report?.scaleNumerator == 1)
        let fill = try ThumbnailDecoder(size: .fill(width: 400, height: 100)).decode(contentsOfFile: file)
        #expect(fill.report?.scaleNumerator == 2)
        #expect((fill.width, fill.height) == (400, 100))
        // The Swift estimate (for the large-decode limiter) agrees with the C decoder.
        #expect(ThumbnailDecoder(size: .fill(width: 400, height: 100)).scaleNumerator(for: fill.source) == 2)
        // A small fill stays at 1/8.
        let small = try ThumbnailDecoder(size: .fill(width: 101, height: 57)).decode(contentsOfFile: file)
        #expect(small.report?.scaleNumerator == 1)
    }

    @Test func aUnionWithAFillCoversItsCover() throws {
        let header = try ThumbnailDecoder().readHeader(
            Fixtures.bytes(ofTestImage: "photo-aitzgorri-baseline-3000x1998.jpg"))
        var decoder = ThumbnailDecoder()
        decoder.size = .union(of: [.fit(64), .fill(width: 400, height: 100)])
        #expect(decoder.size.mode == .fill)
        #expect(decoder.scaleNumerator(for: header) == 2)
        decoder.size = .union(of: [.fit(64), .fit(width: 400, height: 100)])
        #expect(decoder.scaleNumerator(for: header) == 1)
    }

    @Test func sizesParseAndPrintWithTheirMode() {
        #expect(ThumbnailSize(parsing: "fill:256") == .fill(256))
        #expect(ThumbnailSize(parsing: "FILL:320x200") == .fill(width: 320, height: 200))
        #expect(ThumbnailSize(parsing: "320x200") == .fit(width: 320, height: 200))
        #expect(ThumbnailSize(parsing: "256") == .fit(256))
        for bad in ["fill:", "fill:0", "fill:x200", "fit:256", "fill-256", "fill:256x200x1"] {
            #expect(ThumbnailSize(parsing: bad) == nil, "\(bad)")
        }
        #expect(ThumbnailSize.fill(256).description == "fill-256")
        #expect(ThumbnailSize.fill(width: 320, height: 200).description == "fill-320x200")
        #expect(ThumbnailSize.fit(256).description == "256" && ThumbnailSize.fit(width: 320, height: 200).description == "320x200")
        #expect(ThumbnailSize.fill(256) != .fit(256))
    }
}
