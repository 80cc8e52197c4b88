import Testing
import ThumbnailKit
import ThumbnailTerminal

/// Titles from a feed are drawn in the cells a terminal gives them: wide ones
/// stay on their row, and bidi or escape sequences are shown, never obeyed.
@Suite @MainActor struct ListBrowserTitleTests {
    static let columns = 60

    func makeBrowser(titles: [String]) -> ListBrowser {
        // Nothing to load: every row fails at once, which is drawn too.
        let items = titles.enumerated().map { ListBrowser.Item(title: $1, imageURL: "file:///nonexistent/\($0).png") }
        let pipeline = ThumbnailPipeline(configuration: .init(retryPolicy: .never))
        return ListBrowser(items: items, pipeline: pipeline, columns: Self.columns, rows: 20, rowHeight: 4,
                           colorMode: .trueColor)
    }

    func settle(_ browser: ListBrowser) async {
        for (_, cell) in browser.list.visibleCells { await cell.content(as: ThumbnailRowLoader.self)?.waitForLoadingToComplete() }
    }

    @Test func aCJKTitleFitsItsRowAndScrollingLeavesNothingStale() async {
        let wide = "東京の夜景と富士山の写真コレクション、二〇二六年の冬"
        let browser = makeBrowser(titles: [wide, "한국어 제목이 아주 길어서 줄을 넘칠 수도 있는 항목", "plain", "😀👨‍👩‍👧 emoji title"])
        await settle(browser)
        let first = browser.frame(residentBytes: 0)
        _ = browser.handle(.down)
        let second = browser.frame(residentBytes: 0)

        let terminal = ScreenBuffer.replay([first, second])
        #expect(terminal.overflows == 0, "no text runs past the last column into the next row")
        #expect(terminal.unknownSequences.isEmpty)
        for row in 0..<second.rows {
            #expect(terminal.text(ofRow: row) == second.text(ofRow: row), "row \(row)")
            #expect(CellWidth.of(terminal.text(ofRow: row)) == Self.columns, "row \(row) fills exactly its cells")
        }
        let titleRow = terminal.text(ofRow: browser.layout.rowOrigin(index: 0))
        #expect(titleRow.contains("東京の夜景と富士山"), "\(titleRow)")
    }

    @Test func aBidiOverrideInATitleIsShownAsAnEscape() async {
        let browser = makeBrowser(titles: ["invoice\u{202E}fdp.exe", "\u{1B}]0;owned\u{07}\u{1B}[2J"])
        await settle(browser)
        let output = browser.frame(residentBytes: 0).render(changesFrom: nil, mode: .trueColor)
        #expect(!output.unicodeScalars.contains { $0 == "\u{202E}" || $0 == "\u{07}" })

        let terminal = ScreenBuffer.replay([browser.frame(residentBytes: 0)])
        #expect(terminal.unknownSequences.isEmpty, "the title's escapes were not sent")
        #expect(terminal.text(ofRow: browser.layout.rowOrigin(index: 0)).contains(#"invoice\u{202E}fdp.exe"#))
        #expect(terminal.text(ofRow: browser.layout.rowOrigin(index: 1)).contains(#"\u{1B}]0;owned\u{07}\u{1B}[2J"#))
    }
}
