import TestSupport
import Testing
import ThumbnailKit

/// The formats corpus is checked by four suites, one per decoded folder (WebPConformanceTests,
/// GIFConformanceTests, ICCConformanceTests) and one for AVIF, HEIC and JPEG XL
/// (ModernFormatsConformanceTests). Together they cover every row.
@Suite(.enabled(if: FormatsCorpusEntry.folder != nil, "needs ../shared/corpora/formats"))
struct FormatsCorpusTests {
    static let folders = ["webp/", "gif/", "icc/", "avif/", "heic/", "jxl/"]

    @Test func everyRowBelongsToTheSuiteOfItsFolder() {
        #expect(FormatsCorpusEntry.all.allSatisfy { entry in Self.folders.contains { entry.file.hasPrefix($0) } })
        #expect(Self.folders.map { FormatsCorpusEntry.entries(under: $0).count } == [143, 37, 20, 41, 132, 43])
    }
}
