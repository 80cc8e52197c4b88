import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// Embedded ICC profiles and PNG gAMA converted to sRGB on the thumbnail, on the
/// generator's block pictures (TestImages/README.md, "Colour-managed files"):
/// each test profile moves colours in a way a wrong or missing conversion cannot.
@Suite struct ColorManagementTests {
    /// The block colours as stored, row-major (4 × 2 blocks).
    static let blocks = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0],
                         [255, 255, 255], [128, 128, 128], [0, 0, 0], [200, 100, 50]]
    /// The same blocks shown through the red/green-swapped profile.
    static let swappedBlocks = blocks.map { [$0[1], $0[0], $0[2]] }
    static let swappedProfile = "Thumbnailer test: red and green swapped"

    /// The colour at the centre of each of the 4 × 2 blocks.
    static func blockCentres(_ thumbnail: Thumbnail) -> [[Int]] {
        (0..<8).map { index in
            let p = thumbnail.pixel(x: index % 4 * thumbnail.width / 4 + thumbnail.width / 8,
                                    y: index / 4 * thumbnail.height / 2 + thumbnail.height / 4)
            return [Int(p.r), Int(p.g), Int(p.b)]
        }
    }

    /// The largest channel difference between two lists of block colours.
    static func worst(_ a: [[Int]], _ b: [[Int]]) -> Int {
        zip(a.joined(), b.joined()).map { abs($0 - $1) }.max() ?? 0
    }

    static func decode(_ file: String, size: ThumbnailSize = .fit(128), converting: Bool = true,
                       path: JPEGDecodePath = .dcOnly) throws -> Thumbnail {
        try ThumbnailDecoder(size: size, progressivePath: path, convertsToSRGB: converting)
            .decode(contentsOfFile: Fixtures.testImage(file))
    }

    @Test(arguments: ["icc-jpeg-swapped-red-green-128x64.jpg", "icc-png-swapped-red-green-128x64.png"])
    func aSwappedProfileShowsRedAsGreen(file: String) throws {
        let thumbnail = try Self.decode(file)
        #expect(thumbnail.report?.colorProfile == .converted(profile: Self.swappedProfile))
        #expect(Self.worst(Self.blockCentres(thumbnail), Self.swappedBlocks) <= 3, "\(Self.blockCentres(thumbnail))")
        #expect(thumbnail.pixel(x: 0, y: 0).a == 255)
    }

    @Test(arguments: ["icc-jpeg-swapped-red-green-128x64.jpg", "icc-png-swapped-red-green-128x64.png"])
    func conversionOffLeavesThePixelsAsStored(file: String) throws {
        let thumbnail = try Self.decode(file, converting: false)
        #expect(thumbnail.report?.colorProfile == nil)
        #expect(Self.worst(Self.blockCentres(thumbnail), Self.blocks) <= 3)
    }

    @Test func aProfileSplitOverMarkersIsJoinedInSequenceOrder() throws {
        // Markers 3 and 1 before SOF, 2 after it.
        let split = try Self.decode("icc-jpeg-swapped-three-markers-128x64.jpg")
        let whole = try Self.decode("icc-jpeg-swapped-red-green-128x64.jpg")
        #expect(split.report?.colorProfile == .converted(profile: Self.swappedProfile))
        #expect(split.maximumDifference(from: whole) == 0)
    }

    @Test func aMarkerNumberedOutOfSequenceLeavesTheColoursWithANote() throws {
        let thumbnail = try Self.decode("icc-jpeg-misnumbered-marker-128x64.jpg")
        #expect(thumbnail.report?.colorProfile
            == .ignored(profile: nil, reason: "an ICC_PROFILE marker is numbered 0 of 3"))
        #expect(Self.worst(Self.blockCentres(thumbnail), Self.blocks) <= 3)
    }

    @Test(arguments: [("icc-jpeg-broken-profile-128x64.jpg", "the ICC profile cannot be read"),
                      ("icc-png-broken-profile-128x64.png", "libpng dropped the iCCP chunk")])
    func aBrokenProfileDecodesAndIsIgnored(file: String, reason: String) throws {
        let thumbnail = try Self.decode(file)
        guard case .ignored(nil, let note)? = thumbnail.report?.colorProfile else {
            Issue.record("\(file): \(String(describing: thumbnail.report?.colorProfile))")
            return
        }
        #expect(note.hasPrefix(reason), "\(note)")
        #expect(thumbnail.maximumDifference(from: try Self.decode(file, converting: false)) == 0)
    }

    @Test func aProfileOverTheSizeLimitIsIgnoredWithoutHoldingItAll() throws {
        // 65 full APP2 markers: 4,258,735 profile bytes, over the 4 MiB limit.
        var jpeg = try Fixtures.bytes(ofTestImage: "ref-blocks-256x192-q100-444.jpg")
        let piece = [UInt8](repeating: 7, count: 65_519)
        var markers: [UInt8] = []
        for number in 1...65 {
            markers += [0xFF, 0xE2, 0xFF, 0xFF] + Array("ICC_PROFILE".utf8) + [0, UInt8(number), 65] + piece
        }
        jpeg.insert(contentsOf: markers, at: 2)
        let thumbnail = try ThumbnailDecoder(size: .fit(64)).decode(jpeg)
        #expect(thumbnail.report?.colorProfile
            == .ignored(profile: nil, reason: "the ICC_PROFILE markers hold more than 4194304 bytes"))
        // The pieces up to the limit, the thumbnail and libjpeg's state; not the whole profile and a copy.
        #expect(try #require(thumbnail.report).peakDecodeBytes < 4_194_304 + 512 * 1024)
    }

    @Test func aGrayProfileConvertsAGrayImage() throws {
        let thumbnail = try Self.decode("icc-jpeg-gray-linear-128x64.jpg")
        #expect(thumbnail.report?.colorProfile == .converted(profile: "Thumbnailer test: linear gray"))
        // Linear gray 0, 32, …, 255 in sRGB.
        let levels = [0, 99, 137, 165, 188, 208, 225, 255].map { [$0, $0, $0] }
        #expect(Self.worst(Self.blockCentres(thumbnail), levels) <= 2, "\(Self.blockCentres(thumbnail))")
    }

    @Test func aProfileForAnotherColourSpaceIsIgnoredWithANote() throws {
        let thumbnail = try Self.decode("icc-jpeg-gray-with-rgb-profile-128x64.jpg")
        #expect(thumbnail.report?.colorProfile
            == .ignored(profile: Self.swappedProfile, reason: "the profile is for RGB, the image is gray"))
        #expect(thumbnail.maximumDifference(from: try Self.decode("icc-jpeg-gray-with-rgb-profile-128x64.jpg",
                                                                  converting: false)) == 0)
    }

    /// The CMYK blocks' inks through the cyan/magenta-swapped profile, and through today's formula.
    static let cmykThroughProfile = [[255, 0, 255], [0, 255, 255], [255, 255, 0], [0, 0, 0],
                                     [255, 255, 255], [0, 0, 255], [127, 127, 127], [255, 0, 0]]
    static let cmykByFormula = [[0, 255, 255], [255, 0, 255], [255, 255, 0], [0, 0, 0],
                                [255, 255, 255], [0, 0, 255], [127, 127, 127], [0, 255, 0]]

    @Test func aCMYKProfileConvertsTheInks() throws {
        let converted = try Self.decode("icc-jpeg-cmyk-swapped-inks-128x64.jpg")
        #expect(converted.report?.colorProfile == .converted(profile: "Thumbnailer test: cyan and magenta swapped"))
        #expect(Self.worst(Self.blockCentres(converted), Self.cmykThroughProfile) <= 4,
                "\(Self.blockCentres(converted))")
        #expect(stride(from: 3, to: converted.byteCount, by: 4).allSatisfy { converted.pixels[$0] == 255 },
                "the K byte must not stay in the alpha channel")
        let formula = try Self.decode("icc-jpeg-cmyk-swapped-inks-128x64.jpg", converting: false)
        #expect(Self.worst(Self.blockCentres(formula), Self.cmykByFormula) <= 4)
        // Downscaled, the inks are averaged before the profile converts them: still the same colours.
        let small = try Self.decode("icc-jpeg-cmyk-swapped-inks-128x64.jpg", size: .fit(32))
        #expect(Self.worst(Self.blockCentres(small), Self.cmykThroughProfile) <= 4)
    }

    @Test func aCMYKFileWithoutAProfileKeepsTheFormula() throws {
        // 50 × 25: block edges mix, where converting before or after the filter would differ.
        let thumbnail = try Self.decode("jpeg-cmyk-adobe-blocks-128x64.jpg", size: .fit(50))
        #expect(thumbnail.report?.colorProfile == nil)
        #expect(thumbnail.maximumDifference(from: try Self.decode("jpeg-cmyk-adobe-blocks-128x64.jpg", size: .fit(50),
                                                                  converting: false)) == 0)
        #expect(Self.worst(Self.blockCentres(thumbnail), Self.cmykByFormula) <= 4)
    }

    @Test func aGammaFarFromSRGBsIsConverted() throws {
        let thumbnail = try Self.decode("png-gamma-1.0-blocks-128x64.png")
        #expect(thumbnail.report?.colorProfile == .converted(profile: "PNG gAMA 1.00000"))
        // Linear samples in sRGB: 128 → 188, (200, 100, 50) → (229, 168, 122).
        let expected = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0],
                        [255, 255, 255], [188, 188, 188], [0, 0, 0], [229, 168, 122]]
        #expect(Self.worst(Self.blockCentres(thumbnail), expected) <= 1, "\(Self.blockCentres(thumbnail))")
    }

    @Test func anOrdinaryPNGIsLeftAlone() throws {
        let thumbnail = try Self.decode("ref-blocks-256x192.png", size: .fit(256))
        #expect(thumbnail.report?.colorProfile == nil)
        #expect(thumbnail.maximumDifference(from: try Self.decode("ref-blocks-256x192.png", size: .fit(256),
                                                                  converting: false)) == 0)
    }

    @Test(arguments: [("icc-jpeg-progressive-swapped-512x256.jpg", ThumbnailSize.fit(width: 64, height: 32)),
                      ("icc-jpeg-progressive-cmyk-swapped-inks-128x64.jpg", ThumbnailSize.fit(width: 16, height: 8))])
    func theDCOnlyPathAppliesTheProfileAsLibjpegsDoes(file: String, size: ThumbnailSize) throws {
        let dcOnly = try Self.decode(file, size: size)
        let libjpeg = try Self.decode(file, size: size, path: .libjpeg)
        #expect(dcOnly.report?.jpegPath == .dcOnly)
        #expect(libjpeg.report?.jpegPath == .libjpeg)
        #expect(dcOnly.report?.colorProfile == libjpeg.report?.colorProfile)
        #expect(dcOnly.report?.colorProfile?.profile != nil)
        // Inside the blocks; at their edges the DC path's 4:2:0 chroma is interpolated, libjpeg's is not.
        #expect(Self.worst(Self.blockCentres(dcOnly), Self.blockCentres(libjpeg)) <= 4)
        let expected = file.contains("cmyk") ? Self.cmykThroughProfile : Self.swappedBlocks
        #expect(Self.worst(Self.blockCentres(dcOnly), expected) <= 4, "\(Self.blockCentres(dcOnly))")
    }

    @Test func aLumaOnlyDecodeIsNotColourManaged() throws {
        var decoder = ThumbnailDecoder(size: .fit(128))
        decoder.decodesLumaOnly = true
        let thumbnail = try decoder.decode(contentsOfFile: Fixtures.testImage("icc-jpeg-swapped-red-green-128x64.jpg"))
        #expect(thumbnail.report?.colorProfile
            == .ignored(profile: nil, reason: "a luma-only decode is not colour-managed"))
        let p = thumbnail.pixel(x: 16, y: 16)
        #expect(p.r == p.g && p.g == p.b)
    }

    @Test func theColourStagesMemoryIsInThePeak() throws {
        let converted = try #require(try Self.decode("icc-jpeg-cmyk-swapped-inks-128x64.jpg").report)
        let formula = try #require(try Self.decode("icc-jpeg-cmyk-swapped-inks-128x64.jpg", converting: false).report)
        // LittleCMS's CMYK tables: several hundred KiB, counted through its memory handler.
        #expect(converted.peakDecodeBytes > formula.peakDecodeBytes + 256 * 1024,
                "\(converted.peakDecodeBytes) vs \(formula.peakDecodeBytes)")
    }

    @Test func decodesOnManyThreadsConvertAlike() async throws {
        let file = Fixtures.testImage("icc-jpeg-cmyk-swapped-inks-128x64.jpg")
        let reference: Thumbnail = try ThumbnailDecoder(size: .fit(64)).decode(contentsOfFile: file, cancellation: nil)
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await ThumbnailDecoder(size: .fit(64)).decode(contentsOfFile: file)
                        .maximumDifference(from: reference)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results == Array(repeating: 0, count: 8))
    }
}
