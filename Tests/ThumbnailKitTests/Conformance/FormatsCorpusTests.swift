import TestSupport
import Testing
import ThumbnailKit

/// The formats corpus is checked by three suites, one per decoded folder (WebPConformanceTests,
/// GIFConformanceTests, ICCConformanceTests); the folders of formats not decoded yet (AVIF, HEIC,
/// JPEG XL: issue 7/7) are checked here to be refused as such. Together they cover every row.
@Suite(.enabled(if: FormatsCorpusEntry.folder != nil, "needs ../shared/corpora/formats"))
struct FormatsCorpusTests {
    static let decodedFolders = ["webp/", "gif/", "icc/"]
    static let undecodedFolders = ["avif/", "heic/", "jxl/"]

    @Test func everyRowBelongsToTheSuiteOfItsFolder() {
        let folders = Self.decodedFolders + Self.undecodedFolders
        #expect(FormatsCorpusEntry.all.allSatisfy { entry in folders.contains { entry.file.hasPrefix($0) } })
        #expect(Self.decodedFolders.map { FormatsCorpusEntry.entries(under: $0).count } == [143, 37, 20])
        #expect(Self.undecodedFolders.map { FormatsCorpusEntry.entries(under: $0).count } == [41, 132, 43])
    }

    /// A format the decoders do not know is a typed `unsupportedFormat`, whatever the file holds
    /// (the HEIC rows are mostly libheif's fuzzing cases): never a crash, never a wrong guess.
    /// The reference rows are PNG renderings of the JPEG XL files, for when they decode.
    @Test(arguments: undecodedFolders)
    func aFormatNotDecodedYetIsRefusedAsUnsupported(folder: String) {
        let decoder = ThumbnailDecoder(size: .fit(256))
        for entry in FormatsCorpusEntry.entries(under: folder) where entry.expect != .reference {
            do {
                _ = try decoder.decode(contentsOfFile: entry.path)
                Issue.record("\(entry) decoded, but \(folder) is not a format the decoders know")
            } catch ThumbnailDecodingError.unsupportedFormat {
            } catch {
                Issue.record("\(entry): \(error), not unsupportedFormat")
            }
        }
    }
}
