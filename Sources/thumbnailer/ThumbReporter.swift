import CommandLineSupport
import ThumbnailKit
import ThumbnailTerminal

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Prints outcomes: a line (or a JSON object) per input on stdout, a line per failure on stderr,
/// and a warning line on stderr for an image that decoded but was damaged at its source.
/// Text lines are escaped (``TerminalText``): a file name may hold anything but `/` and NUL.
struct ThumbReporter {
    let json: Bool

    func report(_ outcome: ThumbOutcome) {
        switch outcome.result {
        case .success(let written):
            if let damage = written.thumbnail.report?.damage {
                StandardError.print(TerminalText.escaped("thumbnailer: \(outcome.input): warning: damaged at its source, drawn as browsers draw it: \(damage)") + "\n")
            }
            if json {
                print(record(outcome, written).text)
            } else {
                let t = written.thumbnail
                let scale = t.report.map { $0.usedEmbeddedThumbnail ? ", from its embedded thumbnail" : ", scale \($0.scaleNumerator)/8" } ?? ""
                let color = (t.report?.colorProfile).flatMap(Self.describe) ?? ""
                print(TerminalText.escaped("\(outcome.input) -> \(written.output) (\(t.width)x\(t.height) from \(t.source.width)x\(t.source.height)\(scale)\(color), \(Self.format(milliseconds: outcome.milliseconds)))"))
            }
        case .failure(let error):
            let (kind, reason) = Self.describe(error)
            StandardError.print(TerminalText.escaped("thumbnailer: \(outcome.input): \(kind): \(reason)") + "\n")
            if json {
                var line = JSONLine()
                line.add("input", outcome.input)
                line.add("error", kind)
                line.add("reason", reason)
                line.add("milliseconds", Self.rounded(outcome.milliseconds))
                print(line.text)
            }
        }
    }

    /// One input's `--json` object: where it went, the formats and sizes, the DCT scale, the colour
    /// profile and what the decode cost.
    private func record(_ outcome: ThumbOutcome, _ written: ThumbOutcome.Written) -> JSONLine {
        let thumbnail = written.thumbnail, report = thumbnail.report
        var line = JSONLine()
        line.add("input", outcome.input)
        line.add("output", written.output)
        line.add("format", written.format.rawValue)
        line.add("sourceFormat", thumbnail.source.format.rawValue)
        line.add("sourceWidth", thumbnail.source.width)
        line.add("sourceHeight", thumbnail.source.height)
        line.add("width", thumbnail.width)
        line.add("height", thumbnail.height)
        if let report {
            line.add("scale", "\(report.scaleNumerator)/8")
            line.add("peakDecodeBytes", report.peakDecodeBytes)
            if let path = report.jpegPath { line.add("jpegPath", path.rawValue) }
            if report.usedEmbeddedThumbnail { line.add("embeddedThumbnail", true) }
            if let color = report.colorProfile { Self.add(color, to: &line) }
            if let damage = report.damage { line.add("damage", damage) }
        }
        line.add("milliseconds", Self.rounded(outcome.milliseconds))
        return line
    }

    /// `color` (srgb, converted or ignored), `colorProfile` (the profile's description) and, when ignored, `colorNote`.
    private static func add(_ color: ColorConversion, to line: inout JSONLine) {
        switch color {
        case .alreadySRGB: line.add("color", "srgb")
        case .converted: line.add("color", "converted")
        case .ignored(_, let reason):
            line.add("color", "ignored")
            line.add("colorNote", reason)
        }
        line.add("colorProfile", color.profile)
    }

    /// The text line's words for a conversion, or ignored profile; nothing when the file was sRGB already.
    private static func describe(_ color: ColorConversion) -> String? {
        switch color {
        case .alreadySRGB: nil
        case .converted(let profile): ", converted to sRGB from \"\(profile)\""
        case .ignored(let profile, let reason): ", colour profile\(profile.map { " \"\($0)\"" } ?? "") ignored: \(reason)"
        }
    }

    private static func rounded(_ milliseconds: Double) -> Double {
        (milliseconds * 1000).rounded() / 1000
    }

    private static func describe(_ error: any Error) -> (kind: String, reason: String) {
        switch error {
        case let error as ThumbnailDecodingError: (error.kind, error.message)
        case let error as ThumbnailEncodingError: ("encodingFailed", error.message)
        case let error as FileOperationError: ("writeFailed", error.description)
        default: ("failed", "\(error)")
        }
    }

    private static func format(milliseconds: Double) -> String {
        "\((milliseconds * 10).rounded() / 10) ms"
    }
}
