import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// The property the AVIF, HEIC and JPEG XL suites check on pictures their reference encoders make
/// at random sizes: decoded into a box with no memory limit, `peakDecodeBytes` stays within the
/// bound the decoder's file states.
enum StatedBoundCheck {
    /// ``PatternImage`` written as a PNG in `directory` for an encoder to read.
    static func patternPNG(width: Int, height: Int, alpha: Bool, in directory: URL) throws -> URL {
        let png = directory.appendingPathComponent("source.png")
        try Data(PatternImage.png(width: width, height: height, alpha: alpha)).write(to: png)
        return png
    }

    /// Runs `encoder` (a reference encoder's path) with `arguments`, which name the output file.
    static func run(_ encoder: String, _ arguments: [String]) throws {
        let outcome: ChildProcess.Outcome = try ChildProcess.run(arguments, executable: encoder)
        guard outcome.status == 0 else { throw ReferenceDecoderFailure(message: "\(encoder): \(outcome.standardError)") }
    }

    /// What one picture gave: the decode's peak, the stated bound for it, the probe's count of
    /// the library's frames.
    struct Measurement: Sendable {
        let peak: Int, bound: Int, wholeImageBytes: Int
    }

    /// Encodes with `encode` (given a scratch directory, it returns the file it wrote), decodes that
    /// file into `box` on a thread of its own (`runBlocking`: the encoder and the decode take
    /// seconds, which the cooperative pool's threads cannot spare) and records an issue naming
    /// `picture` when the peak passes `bound(file size, thumbnail)` or anything fails.
    static func check(_ picture: some CustomStringConvertible & Sendable, box: Int,
                      encode: @escaping @Sendable (URL) throws -> String,
                      bound: @escaping @Sendable (Int, Thumbnail) -> Int) async {
        do {
            let measured = try await runBlocking {
                let directory = try TemporaryDirectory()
                let path = try encode(directory.url)
                let thumbnail = try ThumbnailDecoder(size: .fit(box), limits: DecodingLimits(maxDecoderMemory: nil),
                                                     convertsToSRGB: false).decode(contentsOfFile: path)
                return Measurement(peak: thumbnail.report?.peakDecodeBytes ?? .max,
                                   bound: bound(try Fixtures.bytes(atPath: path).count, thumbnail),
                                   wholeImageBytes: thumbnail.source.wholeImageBytes)
            }
            #expect(measured.peak <= measured.bound, "\(picture): \(measured.peak) bytes, bound \(measured.bound)")
            #expect(measured.wholeImageBytes > 0, "\(picture): the probe counts the library's frames")
        } catch {
            Issue.record("\(picture): \(error)")
        }
    }
}
