import ThumbnailKit

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Prints outcomes: a line (or a JSON object) per input on stdout, a line per failure on stderr.
struct ThumbReporter {
    let json: Bool

    /// One input's record in `--json` output.
    struct Record: Encodable {
        var input: String
        var output: String?
        var format: String?
        var sourceWidth: Int?
        var sourceHeight: Int?
        var width: Int?
        var height: Int?
        var scale: String?
        var peakDecodeBytes: Int?
        var milliseconds: Double
        var error: String?
        var reason: String?
    }

    func report(_ outcome: ThumbOutcome) {
        switch outcome.result {
        case .success(let written):
            if json {
                printJSON(record(outcome, written))
            } else {
                let t = written.thumbnail, r = t.report
                print("\(outcome.input) -> \(written.output) (\(t.width)x\(t.height) from \(r.source.width)x\(r.source.height), scale \(r.scaleNumerator)/8, \(Self.format(milliseconds: outcome.milliseconds)))")
            }
        case .failure(let error):
            let (kind, reason) = Self.describe(error)
            Self.printError("thumbnailer: \(outcome.input): \(kind): \(reason)")
            if json {
                printJSON(Record(input: outcome.input, milliseconds: outcome.milliseconds, error: kind, reason: reason))
            }
        }
    }

    private func record(_ outcome: ThumbOutcome, _ written: ThumbOutcome.Written) -> Record {
        let thumbnail = written.thumbnail, report = thumbnail.report
        return Record(
            input: outcome.input, output: written.output, format: written.format.rawValue,
            sourceWidth: report.source.width, sourceHeight: report.source.height,
            width: thumbnail.width, height: thumbnail.height, scale: "\(report.scaleNumerator)/8",
            peakDecodeBytes: report.peakDecodeBytes,
            milliseconds: (outcome.milliseconds * 1000).rounded() / 1000)
    }

    private func printJSON(_ record: Record) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(record) else { return }
        print(String(decoding: data, as: UTF8.self))
    }

    private static func describe(_ error: any Error) -> (kind: String, reason: String) {
        switch error {
        case let error as ThumbnailDecodingError: (error.kind, error.message)
        case let error as ThumbnailEncodingError: ("encodingFailed", error.message)
        case let error as OutputError: ("writeFailed", error.description)
        default: ("failed", "\(error)")
        }
    }

    private static func printError(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    private static func format(milliseconds: Double) -> String {
        "\((milliseconds * 10).rounded() / 10) ms"
    }
}
