import Foundation
import TestSupport
import Testing
import ThumbnailKit
import ThumbnailTerminal

/// The browser without a terminal: keys move the window over a fixed pool of
/// reused rows, frames show each row's state, the status line tells the truth.
@Suite @MainActor final class ListBrowserTests {
    let temporary: TemporaryDirectory
    let items: [ListBrowser.Item]

    init() throws {
        let temporary = try TemporaryDirectory()
        self.temporary = temporary
        // Forty numbered images on disk: a row's picture says which row it is.
        items = try ListBrowser.Item.numbered(40, in: temporary)
    }

    func makeBrowser(rows: Int = 25, budget: Int = 1 << 20) -> ListBrowser {
        let pipeline = ThumbnailPipeline(configuration: .init(memoryCostLimit: budget))
        return ListBrowser(items: items, pipeline: pipeline, columns: 100, rows: rows, rowHeight: 6, colorMode: .trueColor)
    }

    /// The text of screen row `row` (characters only).
    func text(of screen: ScreenBuffer, row: Int) -> String {
        String((0..<screen.columns).map { screen.cell(column: $0, row: row).character })
    }

    func waitForVisibleRows(of browser: ListBrowser) async {
        for (_, cell) in browser.list.visibleCells { await cell.content(as: ThumbnailRowLoader.self)?.waitForLoadingToComplete() }
    }

    @Test func keysMoveTheWindowAndTheRowsAreReusedFromAFixedPool() async {
        let browser = makeBrowser()
        let visible = browser.layout.visibleRows
        #expect(browser.viewport.visibleRange == 0..<visible)

        for _ in 0..<(visible + 2) { #expect(browser.handle(.down)) }
        #expect(browser.viewport.selected == visible + 2)
        #expect(browser.viewport.visibleRange.contains(visible + 2))
        #expect(browser.handle(.bottom) && browser.viewport.visibleRange.upperBound == items.count)
        #expect(browser.handle(.top) && browser.viewport.visibleRange == 0..<visible)
        #expect(browser.handle(.pageDown) && browser.viewport.selected == visible)
        #expect(browser.list.cellCount <= visible, "cells are reused, never one per item")
        #expect(!browser.handle(.quit))
    }

    @Test func everyVisibleRowShowsItsOwnImageAfterScrolling() async throws {
        let browser = makeBrowser()
        _ = browser.handle(.bottom)
        _ = browser.handle(.pageUp)
        await waitForVisibleRows(of: browser)
        for (row, cell) in browser.list.visibleCells {
            let thumbnail = try #require(cell.content(as: ThumbnailRowLoader.self)?.currentState.value)
            #expect(NumberedImage.number(in: thumbnail) == row)
            #expect(cell.title == "item \(row)")
        }
    }

    @Test func aNewCellSizeMakesTheThumbnailsAgainAtTheirNewPixelSizeWhereTheWindowWas() async throws {
        let pipeline = ThumbnailPipeline(configuration: .init(memoryCostLimit: 1 << 20))
        // Rows of 6 lines: thumbnails 14 × 5 cells; the 48 × 48 images fit 28 × 20 pixels at 2 × 4 a cell.
        let browser = ListBrowser(items: items, pipeline: pipeline, columns: 100, rows: 25, rowHeight: 6, colorMode: .trueColor,
                                  graphics: .kitty(cell: CellPixelSize(width: 2, height: 4)))
        for _ in 0..<6 { _ = browser.handle(.down) }
        await waitForVisibleRows(of: browser)
        let before = browser.frame(residentBytes: 0).images
        #expect(!before.isEmpty && before.allSatisfy { ($0.thumbnail.width, $0.thumbnail.height) == (20, 20) })

        browser.change(graphics: .kitty(cell: CellPixelSize(width: 3, height: 6)))  // 42 × 30 pixels
        await waitForVisibleRows(of: browser)
        let after = browser.frame(residentBytes: 0).images
        #expect(browser.viewport.selected == 6)
        #expect(after.count == before.count && after.allSatisfy { ($0.thumbnail.width, $0.thumbnail.height) == (30, 30) })
        #expect(after.map(\.row) == before.map(\.row))
        for (row, cell) in browser.list.visibleCells {
            let thumbnail = try #require(cell.content(as: ThumbnailRowLoader.self)?.currentState.value)
            #expect(NumberedImage.number(in: thumbnail) == row, "each row still shows its own image")
        }
    }

    @Test func aFrameShowsTitlesTheSelectionAndTheStatusLine() async {
        let browser = makeBrowser()
        _ = browser.handle(.down)
        await waitForVisibleRows(of: browser)
        let screen = browser.frame(residentBytes: 48 << 20)
        let layout = browser.layout
        #expect(text(of: screen, row: layout.rowOrigin(index: 0)).contains("item 0"))
        let selectedLine = text(of: screen, row: layout.rowOrigin(index: 1))
        #expect(selectedLine.hasPrefix("›") && selectedLine.contains("item 1"))
        let status = text(of: screen, row: layout.statusRow)
        #expect(status.contains("40 items") && status.contains("rows 1–\(layout.visibleRows)") && status.contains("RSS 48.0 MiB") && status.contains("memory ") && status.contains("/1.0 MiB"))
        // The loaded thumbnail is drawn in half blocks left of the title.
        #expect(screen.cell(column: 1, row: layout.rowOrigin(index: 0)).character == "▀")
    }

    @Test func aFailedRowShowsTheReasonAndRetryLoadsItAgain() async throws {
        let missing = temporary.path("late.png")
        let pipeline = ThumbnailPipeline(configuration: .init(retryPolicy: .never))
        let browser = ListBrowser(items: [ListBrowser.Item(title: "late", imageURL: "file://\(missing)")],
                                  pipeline: pipeline, columns: 100, rows: 25, rowHeight: 6, colorMode: .trueColor)
        await waitForVisibleRows(of: browser)
        let screen = browser.frame(residentBytes: 0)
        #expect(text(of: screen, row: browser.layout.rowOrigin(index: 0) + 1).contains("✗"))
        #expect(text(of: screen, row: browser.layout.rowOrigin(index: 0) + 1).contains("r: retry"))

        try NumberedImage.png(7).write(toFile: missing)
        #expect(browser.handle(.retry))
        await waitForVisibleRows(of: browser)
        #expect(browser.list.cell(forRow: 0)?.content(as: ThumbnailRowLoader.self)?.currentState.value.flatMap(NumberedImage.number(in:)) == 7)
    }
}

extension ListBrowser.Item {
    /// `count` items titled `item 0`, `item 1`…, each a numbered image written to `directory`.
    static func numbered(_ count: Int, in directory: TemporaryDirectory) throws -> [ListBrowser.Item] {
        try (0..<count).map { number in
            let path = directory.path("\(number).png")
            try NumberedImage.png(number).write(toFile: path)
            return ListBrowser.Item(title: "item \(number)", imageURL: "file://\(path)")
        }
    }
}

extension [UInt8] {
    /// Writes these bytes to a new file at `path`.
    func write(toFile path: String) throws {
        try Data(self).write(to: URL(fileURLWithPath: path))
    }
}
