import Testing
import TestSupport
import ThumbnailKit

/// The area filter, checked through lossless PNGs whose downscale can be computed.
@Suite struct ResamplingTests {
    @Test func blocksOfEightPixelsDownscaleToExactlyTheirColours() throws {
        let source = RGBAImage(width: 256, height: 192) { x, y in
            (UInt8(x / 8 * 8), UInt8(y / 8 * 10), UInt8((x / 8 + y / 8) % 2 * 255), 255)
        }
        let thumbnail = try ThumbnailDecoder(size: .fit(32)).decode(try source.png())

        #expect(thumbnail.width == 32 && thumbnail.height == 24)
        for y in 0..<24 {
            for x in 0..<32 {
                let p = thumbnail.pixel(x: x, y: y)
                #expect(p.r == UInt8(x * 8) && p.g == UInt8(y * 10) && p.b == UInt8((x + y) % 2 * 255) && p.a == 255,
                        "block (\(x), \(y)) came out as \(p)")
            }
        }
    }

    @Test(arguments: [(300, 200, 256), (97, 61, 40), (1000, 3, 256), (17, 13, 5), (640, 480, 7)])
    func anyRatioMatchesTheAreaFilterReference(width: Int, height: Int, box: Int) throws {
        let source = RGBAImage(width: width, height: height) { x, y in
            (UInt8((x * 7 + y * 3) % 256), UInt8((x * x + y) % 256), UInt8((x ^ y) % 256), 255)
        }
        let thumbnail = try ThumbnailDecoder(size: .fit(box)).decode(try source.png())
        let reference = source.areaDownscaled(toWidth: thumbnail.width, height: thumbnail.height)

        // Integer sums round exactly; the floating-point reference may differ by one at ties.
        #expect(thumbnail.maximumDifference(from: reference) <= 1)
    }

    @Test func transparentPixelsDoNotBleedTheirColourIntoNeighbours() throws {
        // Opaque red beside fully transparent green: premultiplied filtering gives
        // pure red at half opacity; a straight filter would give a brown.
        let source = RGBAImage(width: 64, height: 64) { x, _ in x % 2 == 0 ? (255, 0, 0, 255) : (0, 255, 0, 0) }
        let thumbnail = try ThumbnailDecoder(size: .fit(32)).decode(try source.png())

        #expect(thumbnail.hasAlpha)
        for y in 0..<32 {
            for x in 0..<32 {
                let p = thumbnail.pixel(x: x, y: y)
                #expect(p.r == 255 && p.g == 0 && p.b == 0 && p.a == 128, "pixel (\(x), \(y)) is \(p)")
            }
        }
    }

    @Test func partialTransparencyMatchesThePremultipliedReference() throws {
        let source = RGBAImage(width: 90, height: 70) { x, y in
            (UInt8(x * 2), UInt8(y * 3), 200, UInt8((x * 3 + y * 5) % 256))
        }
        let thumbnail = try ThumbnailDecoder(size: .fit(20)).decode(try source.png())
        let reference = source.areaDownscaled(toWidth: thumbnail.width, height: thumbnail.height)

        #expect(thumbnail.maximumDifference(from: reference) <= 1)
    }

    @Test func anImageSmallerThanTheBoxKeepsItsSizeAndPixels() throws {
        let source = RGBAImage(width: 40, height: 30) { x, y in (UInt8(x), UInt8(y), 7, 255) }
        let thumbnail = try ThumbnailDecoder(size: .fit(256)).decode(try source.png())

        #expect(thumbnail.width == 40 && thumbnail.height == 30)
        #expect(thumbnail.maximumDifference(from: source) == 0)
    }

    @Test(arguments: [
        (1000, 1, ThumbnailSize.fit(256), 256, 1),
        (1, 1000, .fit(256), 1, 256),
        (5000, 2, .fit(256), 256, 1),
        (400, 100, .fit(100), 100, 25),
        (400, 100, .fit(width: 300, height: 50), 200, 50),
        (300, 200, .fit(width: 100, height: 400), 100, 67),
    ])
    func theAspectRatioIsKeptAndNoSideIsEverZero(width: Int, height: Int, size: ThumbnailSize,
                                                 expectedWidth: Int, expectedHeight: Int) throws {
        let source = RGBAImage(width: width, height: height) { _, _ in (10, 20, 30, 255) }
        let thumbnail = try ThumbnailDecoder(size: size).decode(try source.png())

        #expect(thumbnail.width == expectedWidth && thumbnail.height == expectedHeight)
        #expect(thumbnail.pixel(x: 0, y: 0) == (10, 20, 30, 255))
    }

    @Test func originalSizeDecodesEveryPixelUnchanged() throws {
        let source = RGBAImage(width: 33, height: 17) { x, y in (UInt8(x * 7), UInt8(y * 15), UInt8(x + y), UInt8(x * 7)) }
        let thumbnail = try ThumbnailDecoder(size: .original).decode(try source.png())

        #expect(thumbnail.width == 33 && thumbnail.height == 17)
        for y in 0..<17 {
            for x in 0..<33 where source.pixel(x: x, y: y).a > 0 {
                #expect(thumbnail.pixel(x: x, y: y) == source.pixel(x: x, y: y))
            }
        }
    }
}

/// One decode serving several sizes: a thumbnail scaled down again.
@Suite struct DownscalingTests {
    @Test func aDecodedThumbnailScalesDownExactlyByTheAreaFilter() throws {
        let source = RGBAImage(width: 97, height: 61) { x, y in
            (UInt8((x * 7 + y * 3) % 256), UInt8((x * x + y) % 256), UInt8((x ^ y) % 256), UInt8(128 + (x + y) % 128))
        }
        let full = try ThumbnailDecoder(size: .original).decode(try source.png())
        let small = try full.downscaled(toWidth: 40, height: 25)
        #expect(small.width == 40 && small.height == 25 && small.report == full.report)
        #expect(small.maximumDifference(from: source.areaDownscaled(toWidth: 40, height: 25)) <= 1)
    }

    @Test(arguments: ["photo-aitzgorri-baseline-3000x1998.jpg", "photo-friends-portrait-1000x1502.jpg",
                      "photo-sunset-rgba-vignette-1024x683.png"])
    func aSmallerSizeFromTheLargerThumbnailMatchesADirectDecode(photo: String) throws {
        let bytes = try Fixtures.bytes(ofTestImage: photo)
        let large = try ThumbnailDecoder(size: .fit(320)).decode(bytes)
        let direct = try ThumbnailDecoder(size: .fit(width: 100, height: 80)).decode(bytes)
        let source = large.source
        let fitted = ThumbnailSize.fit(width: 100, height: 80).fitting(width: source.orientedWidth,
                                                                      height: source.orientedHeight)
        #expect(fitted == (direct.width, direct.height), "the fitting rule is the decoder's")

        let derived = try large.downscaled(toWidth: fitted.width, height: fitted.height)
        #expect(derived.meanDifference(from: direct) < 1.5, "two area filters in a row stay within rounding of one")
    }

    @Test func theUnionOfBoxesHoldsEachOfThem() {
        #expect(ThumbnailSize.union(of: [.fit(64), .fit(width: 320, height: 200), .fit(128)])
            == .fit(width: 320, height: 200))
        #expect(ThumbnailSize.union(of: [.fit(64), ThumbnailSize(maxWidth: nil, maxHeight: 50)])
            == ThumbnailSize(maxWidth: nil, maxHeight: 64))
        #expect(ThumbnailSize.union(of: []) == .original)
    }
}
