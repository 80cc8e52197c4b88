import TestSupport
import Testing
import ThumbnailKit

/// Every AVIF, HEIC and JPEG XL file of TestImages/ against its format's own decoder (avifdec,
/// heif-convert, djxl): that decoder's full-size picture, brought to our thumbnail's size by the
/// same area filter, is within 35 dB of our thumbnail. Both sides stay in the file's colour space
/// (the tools write the pixels as decoded) and are turned alike (avifdec 0.11 leaves irot/imir
/// out, so those files are compared as stored).
@Suite(.enabled(if: ReferenceDecoder.allAvailable, "needs avifdec, heif-convert and djxl (scripts/test.sh installs them)"))
struct ReferenceDecoderTests {
    static let files = TestImagesManifest.entries
        .filter { ["avif", "heic", "jxl"].contains($0.format) && $0.expect == "decodes" }
        .map(\.name)

    /// 256 px, the list thumbnail; 128 and 48 px, where a HEIC's thumbnail item is large enough
    /// and the filter reduces more.
    static let boxes = [256, 128, 48]

    @Test func theComparisonCoversEveryFormat() {
        #expect(Self.files.count == 16)
        #expect(["avif", "heic", "jxl"].allSatisfy { format in Self.files.contains { $0.hasPrefix(format) } })
    }

    /// One comparison at a time, each on a thread of its own: the tool runs for up to a second,
    /// which neither the cooperative pool's threads nor the cores beside them can spare 48 times over.
    @Test(.serialized, arguments: files, boxes)
    func aThumbnailIsWithin35dBOfTheFormatsOwnDecoder(file: String, box: Int) async throws {
        let (psnr, tool) = try await runBlocking {
            let path = Fixtures.testImage(file)
            let header = try ThumbnailDecoder().readHeader(Fixtures.bytes(atPath: path))
            guard let tool = ReferenceDecoder(for: header.format) else { throw ReferenceDecoderFailure(message: "\(file): no tool") }
            let ours = try ThumbnailDecoder(size: .fit(box), appliesOrientation: tool.appliesOrientation, convertsToSRGB: false)
                .decode(contentsOfFile: path)
            let expected = try tool.decode(path).downscaled(toWidth: ours.width, height: ours.height)
            return (ours.peakSignalToNoiseRatio(against: expected), tool)
        }
        #expect(psnr >= 35, "\(file) at \(box) px: \(psnr) dB against \(tool)")
    }
}
