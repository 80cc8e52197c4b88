import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// Walks the `avif/`, `heic/` and `jxl/` rows of ../shared/corpora/formats/MANIFEST.tsv (libavif's
/// test files, libheif's examples and fuzzing corpus, the JPEG XL conformance set) when that
/// folder exists; skips cleanly when it does not.
@Suite(.enabled(if: FormatsCorpusEntry.folder != nil, "needs ../shared/corpora/formats"))
struct ModernFormatsConformanceTests {
    static let folders = ["avif/", "heic/", "jxl/"]

    /// Room for what these files hold (the largest JPEG XL, 4064×2704, is admitted by an estimate of
    /// 913 MiB): conformance is judged here, the default limits in the decoders' own suites.
    static let decoder = ThumbnailDecoder(
        size: .fit(256), limits: DecodingLimits(maxDecoderMemory: 512 << 20, maxJPEGXLDecoderMemory: 1 << 30))

    /// Every file is decoded from the file and from memory, alike, and is accepted or refused
    /// with a typed error as its row says.
    @Test(.timeLimit(.minutes(5)), arguments: folders)
    func everyFileIsAcceptedOrRejectedAsTheManifestSays(folder: String) async throws {
        let entries = FormatsCorpusEntry.entries(under: folder).filter { $0.expect != .reference }
        #expect(entries.count == ["avif/": 41, "heic/": 132, "jxl/": 24][folder])
        let outcomes = try await runBlocking {
            entries.map { entry in (entry, FileAndMemoryDecode(path: entry.path, decoder: Self.decoder)) }
        }
        var accepted = 0, eitherDecoded = 0, eitherRefused = 0
        for (entry, outcome) in outcomes {
            #expect(outcome.disagreement == nil, "\(entry): \(outcome.disagreement ?? "")")
            switch (entry.expect, outcome.fromFile) {
            case (.accept, .success(let size)):
                accepted += 1
                #expect(size.width >= 1 && size.width <= 256 && size.height >= 1 && size.height <= 256, "\(entry)")
            case (.accept, .failure(ThumbnailDecodingError.unsupportedFeature)) where Self.refusedAsUnsupported.contains(entry.file):
                break
            case (.accept, .failure(let error)):
                Issue.record("\(entry) should decode (\(entry.exercises)) but failed: \(error)")
            case (.reject, .success):
                Issue.record("\(entry) should be rejected (\(entry.exercises)) but decoded")
            case (.reject, .failure(let error)), (.either, .failure(let error)):
                if entry.expect == .either { eitherRefused += 1 }
                #expect(error is ThumbnailDecodingError, "\(entry): \(error)")
            case (.either, .success):
                eitherDecoded += 1
            case (.reference, _):
                break
            }
        }
        print("formats/\(folder) \(accepted) accepted, \(eitherDecoded) either decoded, \(eitherRefused) either refused, of \(entries.count)")
    }

    /// Files whose rendering libjxl 0.7 cannot match: its noise synthesis differs from the
    /// libjxl that rendered noise.ref.png (djxl 0.7 itself is 28 dB from it at 256 px), so that
    /// file is compared with djxl instead.
    static let renderedByAnotherLibjxl: Set<String> = ["jxl/noise.jxl"]

    /// Decoded to pixels, a black (K) channel would need the whole image's extra channel and a
    /// CMYK profile: such a file is refused as unsupported rather than shown without its black.
    static let refusedAsUnsupported: Set<String> = ["jxl/cmyk_layers.jxl"]

    /// The JPEG XL conformance files that come with a reference rendering: our thumbnail is
    /// within 35 dB of that rendering brought to the same size by the same area filter, both
    /// left in the file's colour space (no conversion on either side).
    /// How one JPEG XL conformance file compared: its PSNR, or the error that stopped its decode.
    enum Comparison: Sendable {
        case psnr(Double)
        case refused(any Error)
        case skipped
    }

    @Test func theJPEGXLConformanceFilesMatchTheirReferenceRenderings() async throws {
        let rendered = FormatsCorpusEntry.entries(under: "jxl/").filter { $0.expect != .reference && $0.reference != nil }
        #expect(rendered.count == 19)
        // Decoding and the reference tool take seconds: on a thread of their own, not the cooperative pool's.
        let comparisons = try await runBlocking {
            var decoder = Self.decoder
            decoder.convertsToSRGB = false
            return try rendered.map { entry -> (FormatsCorpusEntry, Comparison) in
                let thumbnail: Thumbnail
                do {
                    thumbnail = try decoder.decode(contentsOfFile: entry.path)
                } catch {
                    return (entry, .refused(error))
                }
                let reference: Thumbnail
                if Self.renderedByAnotherLibjxl.contains(entry.file) {
                    guard ReferenceDecoder.allAvailable else { return (entry, .skipped) }
                    reference = try ReferenceDecoder.djxl.decode(entry.path)
                } else {
                    let referencePath = FormatsCorpusEntry.folder!.appendingPathComponent(entry.reference!).path
                    reference = try ThumbnailDecoder(size: .original, appliesOrientation: false, convertsToSRGB: false)
                        .decode(contentsOfFile: referencePath)
                }
                let expected = try reference.downscaled(toWidth: thumbnail.width, height: thumbnail.height)
                return (entry, .psnr(thumbnail.peakSignalToNoiseRatio(against: expected)))
            }
        }
        for (entry, comparison) in comparisons {
            switch comparison {
            case .psnr(let psnr):
                #expect(!Self.refusedAsUnsupported.contains(entry.file), "\(entry) decoded")
                #expect(psnr >= 35, "\(entry): \(psnr) dB against \(entry.reference!)")
                print("\(entry.file): \(psnr) dB")
            case .refused(ThumbnailDecodingError.unsupportedFeature) where Self.refusedAsUnsupported.contains(entry.file):
                break
            case .refused(let error):
                #expect(entry.expect == .either, "\(entry) should decode: \(error)")
            case .skipped:
                break
            }
        }
    }
}
