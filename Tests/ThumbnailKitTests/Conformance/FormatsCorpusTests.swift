import TestSupport
import Testing

/// The formats corpus is checked by three suites, one per folder (WebPConformanceTests,
/// GIFConformanceTests, ICCConformanceTests): together they must cover every row.
@Suite(.enabled(if: FormatsCorpusEntry.folder != nil, "needs ../shared/corpora/formats"))
struct FormatsCorpusTests {
    @Test func everyRowBelongsToTheSuiteOfItsFolder() {
        let folders = ["webp/", "gif/", "icc/"]
        #expect(FormatsCorpusEntry.all.count == 200)
        #expect(FormatsCorpusEntry.all.allSatisfy { entry in folders.contains { entry.file.hasPrefix($0) } })
        #expect(folders.map { FormatsCorpusEntry.entries(under: $0).count } == [143, 37, 20])
    }
}
