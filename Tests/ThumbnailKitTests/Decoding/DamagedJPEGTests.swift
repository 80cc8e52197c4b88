import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// A JPEG damaged where it was made (a whole file, up to its EOI marker, whose
/// entropy data libjpeg reports as bad) decodes as browsers draw it and says
/// so; the same bytes cut short, as a broken download looks, stay `truncated`.
@Suite struct DamagedJPEGTests {
    /// The 4:4:4 gradient, which has no restart markers: after the damage libjpeg reads on to the end.
    static let withoutRestarts = "jpeg-baseline-444-gradient-256x192.jpg"
    /// The gradient with restart markers: libjpeg picks up again at the next one after the damage.
    static let withRestarts = "jpeg-restart-interval-gradient-256x192.jpg"

    static func damagedFile(_ file: String = withoutRestarts) throws -> (clean: [UInt8], damaged: [UInt8]) {
        try DamagedJPEG.make(fromTestImage: file)
    }

    @Test func aWholeFileWithDamagedEntropyDataDecodesAndSaysSo() throws {
        let (clean, damaged) = try Self.damagedFile()
        let decoder = ThumbnailDecoder(size: .fit(256))
        let reference = try decoder.decode(clean)
        let thumbnail = try decoder.decode(damaged)
        #expect(reference.report?.isDamaged == false && reference.report?.damage == nil)
        let report = try #require(thumbnail.report)
        #expect(report.isDamaged)
        #expect(report.damage?.contains("Corrupt JPEG data") == true, "\(report.damage ?? "nil")")
        #expect(thumbnail.width == 256 && thumbnail.height == 192)
        // Above the damage (the middle of the data, so the middle of the picture) it is the clean picture;
        // the bottom rows, past the damage, are not.
        #expect((0..<32).allSatisfy { y in (0..<256).allSatisfy { thumbnail.pixel(x: $0, y: y) == reference.pixel(x: $0, y: y) } })
        #expect((0..<256).contains { reference.pixel(x: $0, y: 191) != thumbnail.pixel(x: $0, y: 191) })
    }

    @Test func theSameFileFromDiskDecodesTheSame() throws {
        let (_, damaged) = try Self.damagedFile()
        let directory = try TemporaryDirectory()
        let path = directory.path("damaged.jpg")
        try Data(damaged).write(to: URL(fileURLWithPath: path))
        let decoder = ThumbnailDecoder(size: .fit(100))
        let fromFile = try decoder.decode(contentsOfFile: path)
        let fromMemory = try decoder.decode(damaged)
        #expect(fromFile.maximumDifference(from: fromMemory) == 0)
        #expect(fromFile.report?.damage == fromMemory.report?.damage && fromFile.report?.isDamaged == true)
    }

    /// Cut before its end marker, the damaged file looks like a broken download: `truncated`, at
    /// every scale. With restart markers, the decode recovers after the damage, so it is the
    /// missing end marker alone, found after the damage was seen, that makes it truncated.
    @Test(arguments: [withoutRestarts, withRestarts], [32, 64, 256])
    func theDamagedFileCutShortIsTruncated(file: String, box: Int) throws {
        let (_, damaged) = try Self.damagedFile(file)
        #expect(try ThumbnailDecoder(size: .fit(box)).decode(damaged).report?.isDamaged == true)
        let decoder = ThumbnailDecoder(size: .fit(box))
        for cut in [2, 200] {
            let error = #expect(throws: ThumbnailDecodingError.self) { try decoder.decode(Array(damaged.dropLast(cut))) }
            #expect(error?.kind == "truncated", "\(file) cut \(cut) at \(box): \(String(describing: error))")
        }
    }
}
