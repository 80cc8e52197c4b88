import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// The `icc/` rows of ../shared/corpora/formats/MANIFEST.tsv: Pillow's ICC-tagged
/// files and colour charts tagged with wide-gamut and swapped profiles, each
/// chart with an sRGB reference LittleCMS made (relative colorimetric). Plus
/// the PngSuite gAMA files of ../shared/corpora. Skips cleanly without the corpora.
@Suite(.enabled(if: FormatsCorpusEntry.folder != nil, "needs ../shared/corpora/formats"))
struct ICCConformanceTests {
    static let inputs = FormatsCorpusEntry.entries(under: "icc/").filter { $0.expect != .reference }
    static let charts = inputs.filter { $0.reference != nil }
    /// The PSNR a chart's thumbnail must reach against its reference, and the unconverted one must not.
    static let threshold = 35.0

    /// What each of Pillow's files carries, and so what the report must say.
    static let pillowOutcomes: [String: ColorConversion?] = [
        "icc/pillow/icc_profile.png": .alreadySRGB(profile: "sRGB IEC61966-2.1"),
        "icc/pillow/icc_profile_big.jpg": .converted(profile: "TIFF RGB"),  // 399,788 bytes over 7 markers
        // 7 bytes of "profile", in a marker before SOF and again after it: one sequence number twice.
        "icc/pillow/icc-after-SOF.jpg": .ignored(profile: nil, reason: "ICC_PROFILE marker 1 of 1 appears twice"),
        "icc/pillow/pil_sample_cmyk.jpg": nil,  // CMYK without a profile: today's formula
    ]

    @Test func theRowsAreThere() {
        #expect(Self.inputs.count == 16)
        #expect(Self.charts.count == 12)
        #expect(Set(Self.inputs.map(\.file)).isSuperset(of: Self.pillowOutcomes.keys))
    }

    @Test(arguments: inputs)
    func everyAcceptedFileDecodes(entry: FormatsCorpusEntry) throws {
        #expect(entry.expect == .accept)
        let thumbnail = try ThumbnailDecoder(size: .fit(256)).decode(contentsOfFile: entry.path)
        #expect(thumbnail.width >= 1 && thumbnail.width <= 256 && thumbnail.height >= 1 && thumbnail.height <= 256)
        if let expected = Self.pillowOutcomes[entry.file] {
            #expect(thumbnail.report?.colorProfile == expected, "\(entry)")
        } else {
            guard case .converted? = thumbnail.report?.colorProfile else {
                Issue.record("\(entry): \(String(describing: thumbnail.report?.colorProfile))")
                return
            }
        }
    }

    /// A chart and its reference decoded and downscaled alike (same box, so the same size), compared by PSNR.
    static func psnr(_ entry: FormatsCorpusEntry, converting: Bool) throws -> Double {
        let reference = try ThumbnailDecoder(size: .fit(256))
            .decode(contentsOfFile: FormatsCorpusEntry.folder!.appendingPathComponent(entry.reference!).path)
        // The reference carries LittleCMS's own sRGB profile, which must be recognised and left alone.
        #expect(reference.report?.colorProfile == .alreadySRGB(profile: "sRGB built-in"))
        let chart = try ThumbnailDecoder(size: .fit(256), convertsToSRGB: converting).decode(contentsOfFile: entry.path)
        #expect(chart.width == reference.width && chart.height == reference.height)
        return chart.peakSignalToNoiseRatio(against: reference)
    }

    @Test func everyChartMatchesItsSRGBReferenceAndFailsWithoutConversion() throws {
        var lines: [String] = []
        for chart in Self.charts {
            let on = try Self.psnr(chart, converting: true), off = try Self.psnr(chart, converting: false)
            #expect(on >= Self.threshold, "\(chart) converted: \(on) dB")
            #expect(off < Self.threshold, "\(chart) unconverted: \(off) dB, so the comparison could not fail")
            lines.append("\(chart.file.split(separator: "/").last!) \(Self.format(on))/\(Self.format(off))")
        }
        print("icc charts, PSNR converted/unconverted (dB): " + lines.joined(separator: ", "))
    }

    static func format(_ decibels: Double) -> String {
        decibels.isInfinite ? "inf" : String(format: "%.1f", decibels)
    }

    /// PngSuite's gAMA files draw one picture at file gammas 0.35 … 2.50. Those more than 5% from
    /// 1/2.2 are converted, and then show what g04 (0.45, taken as sRGB) shows, where unconverted
    /// they do not: mean channel difference from g04 at most 8 (g25 unconverted: 38 to 85).
    @Test(.enabled(if: Fixtures.corpora != nil, "needs ../shared/corpora"),
          arguments: [("03", 0.35), ("04", 0.45), ("05", 0.55), ("07", 0.70), ("10", 1.00), ("25", 2.50)])
    func pngSuiteGammaFilesShowTheSRGBPicture(gamma: String, value: Double) throws {
        for kind in ["n0g16", "n2c08", "n3p04"] {
            let file = { (gamma: String) in Fixtures.corpora!.appendingPathComponent("pngsuite/g\(gamma)\(kind).png").path }
            let thumbnail = try ThumbnailDecoder().decode(contentsOfFile: file(gamma))
            guard abs(value * 2.2 - 1) > 0.05 else {
                #expect(thumbnail.report?.colorProfile == nil, "g\(gamma)\(kind)")
                continue
            }
            #expect(thumbnail.report?.colorProfile == .converted(profile: String(format: "PNG gAMA %.5f", value)),
                    "g\(gamma)\(kind)")
            let srgb = try ThumbnailDecoder().decode(contentsOfFile: file("04"))
            let unconverted = try ThumbnailDecoder(convertsToSRGB: false).decode(contentsOfFile: file(gamma))
            let converted = thumbnail.meanDifference(from: srgb), left = unconverted.meanDifference(from: srgb)
            #expect(converted <= 8 && converted < left, "g\(gamma)\(kind): \(converted) converted, \(left) not")
        }
    }
}
