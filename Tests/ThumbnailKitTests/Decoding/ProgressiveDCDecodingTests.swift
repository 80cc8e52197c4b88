import Foundation
import TestSupport
import Testing
@testable import ThumbnailKit

/// The DC-only path for progressive JPEGs at 1/8 against libjpeg's own decode
/// of the same file at 1/8 (the scan-skipping path, whose output is libjpeg's
/// full decode), on every progressive JPEG in TestImages/ and ../shared/corpora.
@Suite struct ProgressiveDCDecodingTests {
    /// A progressive file and what its frame header says.
    struct Sample: CustomStringConvertible, Sendable {
        let path: String
        let name: String
        let width: Int, height: Int
        /// Sampling factors (h, v) per component.
        let sampling: [[Int]]
        var description: String { name }

        /// Every component at the same sampling.
        var componentsShareSampling: Bool { Set(sampling).count == 1 }
        /// libjpeg decodes every component with its 1×1 IDCT at 1/8, from the DC alone, as we do. Its
        /// rule (jdmaster.c): a component sampled at half the most, or less, in both directions gets
        /// a larger IDCT instead of upsampling.
        var libjpegUsesTheDCAloneForEveryComponent: Bool {
            let maxH = sampling.map { $0[0] }.max()!, maxV = sampling.map { $0[1] }.max()!
            return sampling.allSatisfy { maxH % (2 * $0[0]) != 0 || maxV % (2 * $0[1]) != 0 }
        }
        /// A gray or YCbCr file whose luma has the most samples (every usual encoder's choice): libjpeg
        /// decodes the luma with its 1×1 IDCT at 1/8, from the DC alone. (YCCK and CMYK have no
        /// luma-only decode; a component with fewer samples than another gets libjpeg's 2×2 IDCT.)
        var lumaComesFromItsDCAlone: Bool {
            sampling.count != 4 && sampling[0] == [sampling.map { $0[0] }.max()!, sampling.map { $0[1] }.max()!]
        }
        /// A box whose thumbnail is the 1/8 image itself, so the area filter averages nothing away.
        var oneEighth: ThumbnailSize { .fit(width: (width + 7) / 8, height: (height + 7) / 8) }
    }

    /// The frame header of a progressive Huffman JPEG (SOF2), or `nil` for anything else.
    static func progressiveFrame(of bytes: [UInt8]) -> (width: Int, height: Int, sampling: [[Int]])? {
        var index = 2
        while index + 9 < bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if marker == 0xC2 {
                let height = Int(bytes[index + 5]) << 8 | Int(bytes[index + 6])
                let width = Int(bytes[index + 7]) << 8 | Int(bytes[index + 8])
                let count = Int(bytes[index + 9])
                guard index + 10 + 3 * count <= bytes.count else { return nil }
                let sampling = (0..<count).map { c in
                    let factors = Int(bytes[index + 11 + 3 * c])
                    return [factors >> 4, factors & 15]
                }
                return (width, height, sampling)
            }
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xCC { return nil }
            index += 2 + length
        }
        return nil
    }

    static let samples: [Sample] = {
        var paths = TestImagesManifest.entries.filter { $0.format == "jpeg" }.map { ($0.path, $0.name) }
        if let corpora = Fixtures.corpora, let files = FileManager.default.enumerator(atPath: corpora.path) {
            for case let file as String in files where file.hasSuffix(".jpg") || file.hasSuffix(".jpeg") {
                paths.append((corpora.appendingPathComponent(file).path, file))
            }
        }
        return paths.sorted { $0.1 < $1.1 }.compactMap { path, name in
            guard let bytes = try? Fixtures.bytes(atPath: path), let frame = progressiveFrame(of: bytes) else { return nil }
            return Sample(path: path, name: name, width: frame.width, height: frame.height, sampling: frame.sampling)
        }
    }()

    /// The files both paths decode at 1/8: those libjpeg decodes, at least 57 px a side (a narrower
    /// side would be under 8 px at 1/8, so the decoder picks a larger scale).
    static let decodable: [Sample] = samples.filter { sample in
        let thumbnail = try? ThumbnailDecoder(size: sample.oneEighth, progressivePath: .skippingScans)
            .decode(contentsOfFile: sample.path)
        return thumbnail?.report?.scaleNumerator == 1
    }

    func decoders(for sample: Sample, lumaOnly: Bool) -> (dcOnly: ThumbnailDecoder, libjpeg: ThumbnailDecoder) {
        var dcOnly = ThumbnailDecoder(size: sample.oneEighth, appliesOrientation: false, progressivePath: .dcOnly)
        dcOnly.decodesLumaOnly = lumaOnly
        var libjpeg = dcOnly
        libjpeg.progressivePath = .skippingScans
        return (dcOnly, libjpeg)
    }

    @Test func thereAreProgressiveFilesOfEveryKindToCompare() {
        #expect(Self.decodable.count >= 4, "\(Self.decodable)")
        #expect(Self.decodable.contains { $0.sampling.count == 1 }, "a gray file")
        #expect(Self.decodable.contains { $0.sampling.count == 3 && $0.componentsShareSampling }, "a 4:4:4 file")
        #expect(Self.decodable.contains { $0.sampling.count == 3 && !$0.componentsShareSampling }, "a subsampled file")
        #expect(Self.decodable.filter(\.lumaComesFromItsDCAlone).count >= 20)
        #expect(Self.decodable.filter { $0.libjpegUsesTheDCAloneForEveryComponent && !$0.componentsShareSampling }.count >= 5)
    }

    @Test(arguments: decodable.filter(\.lumaComesFromItsDCAlone))
    func theLumaPlaneIsLibjpegsOneEighthDecode(sample: Sample) throws {
        let (dcOnly, libjpeg) = decoders(for: sample, lumaOnly: true)
        let ours = try dcOnly.decode(contentsOfFile: sample.path)
        let reference = try libjpeg.decode(contentsOfFile: sample.path)
        #expect(ours.report?.jpegPath == .dcOnly)
        #expect(ours.width == reference.width && ours.height == reference.height)
        #expect(ours.maximumDifference(from: reference) == 0, "\(sample)")
    }

    /// RGB PSNR floors (dB) against libjpeg where it reads AC terms for a component and ours
    /// interpolates it from the DC (4:2:0 chroma at 1/8): what each file measured, less 1.5 dB.
    /// Mirrored interpolation weights lose 3.4 to 15 dB on every one of them (24.56 → 16.08 for
    /// the swapped-profile file, 44.64 → 29.33 for the 4:2:0 gradient). Files from
    /// ../shared/corpora are listed when they were measured; one not listed gets `otherFloor`.
    static let interpolatedColourFloors: [String: Double] = [
        "icc-jpeg-progressive-swapped-512x256.jpg": 23.0,
        "jpeg-progressive-410-photo-200x150.jpg": 32.6,
        "jpeg-progressive-420-gradient-256x192.jpg": 43.1,
        "jpeg-progressive-420-photo-255x129.jpg": 34.8,
        "jpeg-progressive-420-photo-333x250.jpg": 34.6,
        "jpeg-progressive-dc-al2-photo-255x129.jpg": 34.8,
        "jpeg-progressive-dc-noninterleaved-photo-255x129.jpg": 34.8,
        "jpeg-progressive-dc-partly-interleaved-photo-255x129.jpg": 34.8,
        "jpeg-progressive-dqt-between-scans-photo-255x129.jpg": 34.8,
        "jpeg-progressive-restart-1row-photo-255x129.jpg": 34.8,
        "jpeg-progressive-restart-5mcus-photo-255x129.jpg": 34.8,
        "jpeg-progressive-sample-1x1-2x2-1x1-photo-200x150.jpg": 27.2,
        "jpeg-progressive-ycck-adobe-photo-128x96.jpg": 31.7,
        "photo-picosdeeuropa-progressive-2048x1536.jpg": 40.8,
        "jpeg-decoder/crashtest/subtract-with-overflow.jpg": 28.3,
        "pillow/app13-multiple.jpg": 31.2,
    ]
    static let otherFloor = 20.0

    /// Colour: identical where libjpeg also decodes every component from its DC
    /// alone (4:4:4, 4:2:2, 4:4:0, 4:1:1, gray, CMYK); where it reads AC terms
    /// (4:2:0 chroma at 1/8) ours is interpolated from the DC and must stay within
    /// its file's floor (`interpolatedColourFloors`); the figures are printed.
    @Test(arguments: decodable)
    func colourMatchesLibjpegWhereItAlsoUsesTheDCAlone(sample: Sample) throws {
        let (dcOnly, libjpeg) = decoders(for: sample, lumaOnly: false)
        let ours = try dcOnly.decode(contentsOfFile: sample.path)
        let reference = try libjpeg.decode(contentsOfFile: sample.path)
        let psnr = ours.peakSignalToNoiseRatio(against: reference)
        let memory = "\(ours.report?.peakDecodeBytes ?? 0) B against libjpeg's \(reference.report?.peakDecodeBytes ?? 0) B"
        print("DC-only vs libjpeg at 1/8: \(sample.name) \(sample.width)×\(sample.height) sampling \(sample.sampling): "
              + "RGB PSNR \(psnr.isInfinite ? "∞ (identical)" : String(format: "%.2f dB", psnr)), "
              + "max difference \(ours.maximumDifference(from: reference)); decode memory \(memory)")
        if sample.libjpegUsesTheDCAloneForEveryComponent {
            #expect(ours.maximumDifference(from: reference) == 0, "\(sample)")
        } else {
            let floor = Self.interpolatedColourFloors[sample.name] ?? Self.otherFloor
            #expect(psnr >= floor, "\(sample): RGB PSNR \(psnr) dB, under its floor of \(floor) dB")
        }
    }

    /// Every file in TestImages/ whose colour is interpolated has a floor of its own, so a new one is
    /// measured (but one of a single chroma block, where there is nothing to interpolate between).
    @Test func everyTestImageWithInterpolatedColourHasItsOwnFloor() {
        let names = Set(TestImagesManifest.entries.map(\.name))
        let interpolated = Self.decodable.filter {
            !$0.libjpegUsesTheDCAloneForEveryComponent && names.contains($0.name) && $0.width > 16 && $0.height > 16
        }
        #expect(interpolated.count >= 10)
        for sample in interpolated {
            #expect(Self.interpolatedColourFloors[sample.name] != nil, "\(sample.name) has no measured floor")
        }
    }

    /// The DC-only path runs at 1/8 only. At 1/4 libjpeg decodes every scan (its
    /// 2×2 IDCT reads every band of the standard scan script), and a decoder told
    /// to stop short of the DC-only path takes the scan-skipping one at 1/8.
    @Test func onlyAOneEighthDecodeTakesTheDCOnlyPath() throws {
        let photo = try #require(TestImagesManifest.entry(prefix: "photo-", containing: "progressive"))
        let header = try #require(photo.header)
        let paths = try [256, header.width / 8 + 1].map { box in
            try ThumbnailDecoder(size: .fit(box)).decode(contentsOfFile: photo.path).report?.jpegPath
        }
        #expect(paths == [.dcOnly, .libjpeg])
        let stoppedShort = try ThumbnailDecoder(size: .fit(256), progressivePath: .skippingScans).decode(contentsOfFile: photo.path)
        #expect(stoppedShort.report?.jpegPath == .skippingScans)
        let baseline = try #require(TestImagesManifest.entry(prefix: "photo-", containing: "baseline"))
        #expect(try ThumbnailDecoder(size: .fit(64)).decode(contentsOfFile: baseline.path).report?.jpegPath == .libjpeg)
    }

    /// EXIF orientation applies on the DC-only path as on libjpeg's: a progressive
    /// photo given the EXIF segment of an orientation-6 file (spliced in after SOI).
    @Test func orientationAppliesOnTheDCOnlyPath() throws {
        let photo = try Fixtures.bytes(ofTestImage: "jpeg-progressive-422-photo-200x150.jpg")
        let tagged = try Fixtures.bytes(ofTestImage: "jpeg-exif-orientation-6-mm.jpg")
        let app1 = try #require(tagged.indices.dropLast(3).first { tagged[$0] == 0xFF && tagged[$0 + 1] == 0xE1 })
        let length = Int(tagged[app1 + 2]) << 8 | Int(tagged[app1 + 3])
        let rotated = Array(photo[..<2]) + tagged[app1..<(app1 + 2 + length)] + photo[2...]
        let ours = try ThumbnailDecoder(size: .fit(25)).decode(rotated)
        let reference = try ThumbnailDecoder(size: .fit(25), progressivePath: .skippingScans).decode(rotated)
        #expect(ours.source.orientation == 6 && ours.report?.jpegPath == .dcOnly)
        #expect(ours.width == 19 && ours.height == 25, "200×150 turned a quarter: \(ours.width)×\(ours.height)")
        #expect(ours.maximumDifference(from: reference) == 0)
    }

    /// Every progressive file, broken ones included: the DC-only path gives the
    /// scan-skipping path's outcome at 1/8, error for error (pixels: the tests above).
    /// Damage libjpeg reports inside AC scans the DC-only path never reads is not
    /// seen there, so only the outcome is compared, not the damage report.
    @Test(arguments: samples)
    func everyFileGetsTheOutcomeItGetsFromLibjpeg(sample: Sample) throws {
        let (dcOnly, libjpeg) = decoders(for: sample, lumaOnly: false)
        let ours = Result { try dcOnly.decode(contentsOfFile: sample.path) }
        let reference = Result { try libjpeg.decode(contentsOfFile: sample.path) }
        switch (ours, reference) {
        case (.success, .success):
            break
        case let (.failure(a), .failure(b)):
            #expect("\(a)" == "\(b)", "\(sample)")
        case let (.success, .failure(error)):
            Issue.record("\(sample): the DC-only path decoded what libjpeg refuses: \(error)")
        case let (.failure(error), .success):
            Issue.record("\(sample): the DC-only path refused what libjpeg decodes: \(error)")
        }
    }

    /// The bound the DC-only path promises: one int16 per block per component
    /// (MCU padding included), the thumbnail, and a fixed margin for its rows,
    /// the area filter and libjpeg's header state. libjpeg's own decode of the
    /// same file needs 64 coefficients per block.
    @Test func decodeMemoryIsTwoBytesPerBlockPlusTheThumbnail() throws {
        let photo = try #require(TestImagesManifest.entry(prefix: "photo-", containing: "progressive"))
        let bytes = try Fixtures.bytes(atPath: photo.path)
        let frame = try #require(Self.progressiveFrame(of: bytes))
        let maxH = frame.sampling.map { $0[0] }.max()!, maxV = frame.sampling.map { $0[1] }.max()!
        let mcusPerRow = (frame.width + 8 * maxH - 1) / (8 * maxH), mcuRows = (frame.height + 8 * maxV - 1) / (8 * maxV)
        let blocks = frame.sampling.reduce(0) { $0 + mcusPerRow * $1[0] * mcuRows * $1[1] }
        let thumbnail = try ThumbnailDecoder(size: .fit(256)).decode(bytes)
        let report = try #require(thumbnail.report)
        let margin = 64 << 10
        let bound = blocks * 2 + thumbnail.width * thumbnail.height * 4 + margin
        print("DC-only decode of \(photo.name): \(report.peakDecodeBytes) B, bound \(bound) B (\(blocks) blocks)")
        #expect(report.jpegPath == .dcOnly)
        #expect(report.peakDecodeBytes <= bound)
        let libjpeg = try ThumbnailDecoder(size: .fit(256), progressivePath: .skippingScans).decode(bytes)
        #expect(try #require(libjpeg.report).peakDecodeBytes > blocks * 64 * 2, "libjpeg keeps every coefficient")
    }
}
