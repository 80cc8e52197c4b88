import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// Walks the `gif/` rows of ../shared/corpora/formats/MANIFEST.tsv (image-gif's
/// samples, regressions and fuzzer crash and stall cases, Pillow's GIF edge cases
/// and bombs) when that folder exists; skips cleanly when it does not.
@Suite struct GIFConformanceTests {
    static let entries = FormatsCorpusEntry.entries(under: "gif/")

    /// What decoding one file gave, from the file and from memory.
    struct Outcome: Sendable {
        let entry: FormatsCorpusEntry
        /// The decode streamed from the file: the thumbnail's size, or the error.
        let fromFile: Result<(width: Int, height: Int), any Error>
        /// How the decode from memory disagreed with it, if it did.
        let disagreement: String?
    }

    /// Decodes every file both ways into the 256 box, off the cooperative pool.
    static func decodeEveryFile() async throws -> [Outcome] {
        try await runBlocking {
            let decoder = ThumbnailDecoder(size: .fit(256))
            return entries.map { entry in
                let fromFile = Result { try decoder.decode(contentsOfFile: entry.path) }
                let fromMemory = Result { try decoder.decode(try Fixtures.bytes(atPath: entry.path)) }
                let disagreement: String? = switch (fromFile, fromMemory) {
                case let (.success(a), .success(b)):
                    a.maximumDifference(from: b) == 0 && a.source == b.source ? nil : "file and memory decodes differ"
                case let (.failure(a), .failure(b)):
                    "\(a)" == "\(b)" ? nil : "file and memory decodes fail differently: \(a) vs \(b)"
                default:
                    "file and memory decodes disagree: \(fromFile) vs \(fromMemory)"
                }
                return Outcome(entry: entry, fromFile: fromFile.map { ($0.width, $0.height) }, disagreement: disagreement)
            }
        }
    }

    /// A thumbnail that fits the 256 box, as every decode must give.
    static func fitsTheBox(_ size: (width: Int, height: Int)) -> Bool {
        (1...256).contains(size.width) && (1...256).contains(size.height)
    }

    // The stall and crash cases must end: a hang fails here instead of blocking the suite.
    @Test(.enabled(if: FormatsCorpusEntry.folder != nil, "needs ../shared/corpora/formats"), .timeLimit(.minutes(1)))
    func everyFileIsAcceptedRejectedOrSurvivedAsTheManifestSays() async throws {
        #expect(Self.entries.count == 37)
        var accepted = 0, rejected = 0, eitherDecoded = 0, eitherRefused = 0
        for outcome in try await Self.decodeEveryFile() {
            let entry = outcome.entry
            #expect(outcome.disagreement == nil, "\(entry): \(outcome.disagreement ?? "")")
            switch (entry.expect, outcome.fromFile) {
            case (.accept, .success(let size)):
                accepted += 1
                #expect(Self.fitsTheBox(size), "\(entry): \(size)")
            case (.accept, .failure(let error)):
                Issue.record("\(entry) should decode (\(entry.exercises)) but failed: \(error)")
            case (.reject, .success):
                Issue.record("\(entry) should be refused (\(entry.exercises)) but decoded")
            case (.reject, .failure(let error)):
                rejected += 1
                #expect(error is ThumbnailDecodingError, "\(entry): \(error)")
            case (.either, .success(let size)):
                eitherDecoded += 1
                #expect(Self.fitsTheBox(size), "\(entry): \(size)")
            case (.either, .failure(let error)):
                eitherRefused += 1
                #expect(error is ThumbnailDecodingError, "\(entry): \(error)")
            case (.reference, _):
                Issue.record("\(entry): a reference rendering among the GIF inputs")
            }
        }
        print("gif corpus: \(accepted) accepted, \(rejected) rejected, either: \(eitherDecoded) decoded and \(eitherRefused) refused, of \(Self.entries.count)")
    }
}
