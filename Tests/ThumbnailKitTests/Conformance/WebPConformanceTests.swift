import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// Walks the `webp/` rows of ../shared/corpora/formats/MANIFEST.tsv (libwebp's
/// conformance streams and Pillow's WebP files) when that folder exists; skips
/// cleanly when it does not.
@Suite struct WebPConformanceTests {
    static let entries = FormatsCorpusEntry.entries(under: "webp/")

    /// Decodes every file both ways, off the cooperative pool.
    static func decodeEveryFile() async throws -> [(entry: FormatsCorpusEntry, decode: FileAndMemoryDecode)] {
        try await runBlocking {
            let decoder = ThumbnailDecoder(size: .fit(256))
            return entries.map { entry in (entry, FileAndMemoryDecode(path: entry.path, decoder: decoder)) }
        }
    }

    @Test(.enabled(if: FormatsCorpusEntry.folder != nil, "needs ../shared/corpora/formats"), .timeLimit(.minutes(3)))
    func everyFileIsAcceptedOrRejectedAsTheManifestSays() async throws {
        // 130 libwebp conformance streams and 13 Pillow files, every one marked accept.
        #expect(Self.entries.count == 143)
        var accepted = 0, rejected = 0, eitherDecoded = 0, eitherRefused = 0
        for (entry, outcome) in try await Self.decodeEveryFile() {
            #expect(outcome.disagreement == nil, "\(entry): \(outcome.disagreement ?? "")")
            switch (entry.expect, outcome.fromFile) {
            case (.accept, .success(let size)):
                accepted += 1
                #expect(size.width >= 1 && size.width <= 256 && size.height >= 1 && size.height <= 256, "\(entry)")
            case (.accept, .failure(let error)):
                Issue.record("\(entry) should decode (\(entry.exercises)) but failed: \(error)")
            case (.reject, .success):
                Issue.record("\(entry) should be rejected (\(entry.exercises)) but decoded")
            case (.reject, .failure(let error)):
                rejected += 1
                #expect(error is ThumbnailDecodingError, "\(entry): \(error)")
            case (.either, .success):
                eitherDecoded += 1
            case (.either, .failure(let error)):
                eitherRefused += 1
                #expect(error is ThumbnailDecodingError, "\(entry): \(error)")
            case (.reference, _):
                break
            }
        }
        print("formats/webp: \(accepted) accepted, \(rejected) rejected, \(eitherDecoded) either decoded, \(eitherRefused) either refused, of \(Self.entries.count)")
    }

    @Test(.enabled(if: FormatsCorpusEntry.folder != nil, "needs ../shared/corpora/formats"))
    func pillowsOrientedHoppersAllComeOutUpright() throws {
        let decoder = ThumbnailDecoder(size: .fit(64))
        let hopper = try #require(Self.entries.first { $0.file == "webp/pillow/hopper.webp" })
        let upright = try decoder.decode(contentsOfFile: hopper.path)
        let oriented = Self.entries.filter { $0.file.contains("hopper_orientation_") }
        #expect(oriented.count == 7)
        for entry in oriented {
            let thumbnail = try decoder.decode(contentsOfFile: entry.path)
            #expect(thumbnail.source.orientation == Int(entry.file.dropLast(".webp".count).last!.wholeNumberValue!))
            #expect(thumbnail.width == upright.width && thumbnail.height == upright.height, "\(entry)")
            // Each is hopper re-encoded after the inverse transform: lossy, so close, not equal.
            #expect(thumbnail.meanDifference(from: upright) < 4, "\(entry): mean \(thumbnail.meanDifference(from: upright))")
        }
    }
}
