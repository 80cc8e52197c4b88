import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// Walks ../shared/corpora/MANIFEST.tsv (512 public PNG/JPEG files, each marked
/// accept or reject) when that folder exists; skips cleanly when it does not.
@Suite struct ConformanceTests {
    struct Entry: CustomStringConvertible, Sendable {
        let file: String
        let exercises: String
        let expectsAccept: Bool
        var description: String { file }
    }

    /// Valid files using features many decoders leave out (12-bit, lossless or
    /// arithmetic JPEG): decoding them is welcome, a clean `unsupportedFeature` is allowed.
    static func isOptionalFeature(_ entry: Entry) -> Bool {
        ["12-bit", "lossless JPEG", "arithmetic"].contains { entry.exercises.contains($0) }
    }

    /// Files the manifest marks accept that are whole (they reach their EOI marker) but whose
    /// entropy-coded data libjpeg reports as damaged. They decode as browsers draw them, the
    /// damaged part grey, and the report says so.
    static let damagedAtSource: Set<String> = [
        "pillow/hopper_bad_exif.jpg",  // "1214 extraneous bytes before marker", bad Huffman codes
        "jpeg-decoder/crashtest/subtract-with-overflow.jpg",  // bad Huffman codes
        "jpeg-decoder/crashtest/dc-predictor-overflow.jpg",  // data ends at row 3 of 18
        "jpeg-decoder/reftest/partial_progressive.jpg",  // inconsistent progression sequence
        "jpeg-decoder/reftest/progressive-missing-dc.jpg",  // AC scans without their DC scan
    ]

    static let entries: [Entry] = {
        guard let corpora = Fixtures.corpora,
              let manifest = try? String(contentsOf: corpora.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        else { return [] }
        return manifest.split(separator: "\n").dropFirst().compactMap { line in
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count >= 6 else { return nil }
            return Entry(file: columns[0], exercises: columns[4], expectsAccept: columns[5] == "accept")
        }
    }()

    /// What decoding one file gave, from the file and from memory.
    struct Outcome: Sendable {
        let entry: Entry
        /// The decode streamed from the file: the thumbnail's size and the damage it reported, or the error.
        let fromFile: Result<(width: Int, height: Int, damage: String?), any Error>
        /// How the decode from memory disagreed with it, if it did.
        let disagreement: String?
    }

    /// Decodes every file both ways, off the cooperative pool (it takes tens of seconds).
    static func decodeEveryFile(in corpora: URL) async throws -> [Outcome] {
        try await runBlocking {
            let decoder = ThumbnailDecoder(size: .fit(256))
            return entries.map { entry in
                let path = corpora.appendingPathComponent(entry.file).path
                let fromFile = Result { try decoder.decode(contentsOfFile: path) }
                let fromMemory = Result { try decoder.decode(try Fixtures.bytes(atPath: path)) }
                let disagreement: String? = switch (fromFile, fromMemory) {
                case let (.success(a), .success(b)):
                    a.maximumDifference(from: b) == 0 ? nil : "file and memory decodes differ"
                case let (.failure(a), .failure(b)):
                    "\(a)" == "\(b)" ? nil : "file and memory decodes fail differently: \(a) vs \(b)"
                default:
                    "file and memory decodes disagree: \(fromFile) vs \(fromMemory)"
                }
                return Outcome(entry: entry, fromFile: fromFile.map { ($0.width, $0.height, $0.report?.damage) }, disagreement: disagreement)
            }
        }
    }

    @Test(.enabled(if: Fixtures.corpora != nil, "needs ../shared/corpora"), .timeLimit(.minutes(3)))
    func everyFileIsAcceptedOrRejectedAsTheManifestSays() async throws {
        let corpora = try #require(Fixtures.corpora)
        #expect(Self.entries.count == 512)
        var accepted = 0, rejected = 0, optionalRefused = 0
        var damaged: Set<String> = []
        for outcome in try await Self.decodeEveryFile(in: corpora) {
            let entry = outcome.entry
            // Both input paths, streamed from the file and from memory, must agree.
            #expect(outcome.disagreement == nil, "\(entry): \(outcome.disagreement ?? "")")
            switch (entry.expectsAccept, outcome.fromFile) {
            case (true, .success(let size)):
                accepted += 1
                #expect(size.width >= 1 && size.width <= 256 && size.height >= 1 && size.height <= 256)
                if size.damage != nil { damaged.insert(entry.file) }
            case (true, .failure(ThumbnailDecodingError.unsupportedFeature)) where Self.isOptionalFeature(entry):
                optionalRefused += 1
            case (true, .failure(let error)):
                Issue.record("\(entry) should decode (\(entry.exercises)) but failed: \(error)")
            case (false, .success):
                Issue.record("\(entry) should be rejected (\(entry.exercises)) but decoded")
            case (false, .failure(let error)):
                rejected += 1
                #expect(error is ThumbnailDecodingError, "\(entry): \(error)")
            }
        }
        // Exactly the files known to be damaged at their source say so; every other one decoded cleanly.
        #expect(damaged == Self.damagedAtSource)
        print("corpora: \(accepted) accepted (\(damaged.count) of them damaged at the source), \(rejected) rejected, \(optionalRefused) optional features refused, of \(Self.entries.count)")
    }
}
