import TestSupport
import Testing
import ThumbnailKit

/// EXIF orientation 1–8 turns every marker file into the same upright picture:
/// 96×64 white, red block top-left, blue top-right, green bottom-left. JPEG
/// carries it in APP1, WebP in an EXIF chunk (with or without "Exif\0\0"), AVIF in its irot and
/// imir properties.
@Suite struct OrientationTests {
    static let files = (1...8).map { "jpeg-exif-orientation-\($0)-\($0 % 2 == 1 ? "ii" : "mm").jpg" } + [
        "jpeg-exif-orientation-0-invalid-ii.jpg", "jpeg-exif-orientation-9-invalid-mm.jpg",
        "jpeg-exif-none-96x64.jpg", "jpeg-exif-malformed-ifd-offset.jpg", "jpeg-exif-malformed-entry-count.jpg",
        "webp-exif-orientation-6-mm.webp", "webp-exif-orientation-3-ii-exif-prefix.webp",
        "avif-irot-90-anticlockwise-64x96.avif", "avif-imir-left-right-96x64.avif",
    ]

    static func colour(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> String {
        switch (p.r > 180, p.g > 180, p.b > 180) {
        case (true, false, false): "red"
        case (false, true, false): "green"
        case (false, false, true): "blue"
        case (true, true, true): "white"
        default: "other \(p)"
        }
    }

    @Test(arguments: files)
    func theThumbnailIsUpright(file: String) throws {
        for (box, width, height) in [(256, 96, 64), (48, 48, 32)] {
            let thumbnail = try ThumbnailDecoder(size: .fit(box)).decode(contentsOfFile: Fixtures.testImage(file))
            // A wrong size fails here rather than send the pixel reads below out of range.
            try #require(thumbnail.width == width && thumbnail.height == height, "\(file) at \(box)")
            let sx = width / 96 == 1 ? 1 : 2
            func at(_ x: Int, _ y: Int) -> String { Self.colour(thumbnail.pixel(x: x / sx, y: y / sx)) }
            #expect(at(12, 12) == "red", "\(file) at \(box)")
            #expect(at(84, 12) == "blue", "\(file) at \(box)")
            #expect(at(12, 52) == "green", "\(file) at \(box)")
            #expect(at(84, 52) == "white", "\(file) at \(box)")
        }
    }

    @Test func aWidthByHeightBoxFitsTheOrientedPicture() throws {
        // Stored 64×96 with orientation 6: upright it is 96×64, so a 48×100 box gives 48×32.
        let thumbnail = try ThumbnailDecoder(size: .fit(width: 48, height: 100)).decode(
            contentsOfFile: Fixtures.testImage("jpeg-exif-orientation-6-mm.jpg"))
        #expect(thumbnail.width == 48 && thumbnail.height == 32)
        #expect(thumbnail.source.orientation == 6)
    }

    @Test func orientationCanBeLeftAlone() throws {
        let thumbnail = try ThumbnailDecoder(appliesOrientation: false).decode(
            contentsOfFile: Fixtures.testImage("jpeg-exif-orientation-6-mm.jpg"))
        #expect(thumbnail.width == 64 && thumbnail.height == 96)
        // Stored with red bottom-left, as the README's table says.
        #expect(Self.colour(thumbnail.pixel(x: 12, y: 84)) == "red")
    }

    @Test(.enabled(if: Fixtures.corpora != nil, "needs ../shared/corpora"),
          arguments: ["Landscape", "Portrait"])
    func theCorpusOrientationSamplesAllComeOutTheSameWay(kind: String) throws {
        let corpora = try #require(Fixtures.corpora)
        let decoder = ThumbnailDecoder(size: .fit(64))
        let upright = try decoder.decode(contentsOfFile: corpora.appendingPathComponent("exif-orientation/\(kind)_1.jpg").path)
        for n in 0...8 {
            let path = corpora.appendingPathComponent("exif-orientation/\(kind)_\(n).jpg").path
            let thumbnail = try decoder.decode(contentsOfFile: path)
            #expect(thumbnail.width == upright.width && thumbnail.height == upright.height, "\(kind)_\(n)")
            #expect(thumbnail.meanDifference(from: upright) < 8, "\(kind)_\(n) differs from \(kind)_1")
        }
    }
}
