import Testing
import ThumbnailTerminal

@Suite struct BrowserLayoutTests {
    @Test func rowsOfTheRowHeightFitAboveTheStatusLine() {
        let layout = BrowserLayout(columns: 120, rows: 40, rowHeight: 7)
        #expect(layout.visibleRows == 5 && layout.statusRow == 39)
        #expect(layout.rowOrigin(index: 0) == 0 && layout.rowOrigin(index: 4) == 28)
        #expect(layout.thumbnailColumns == 16, "a 4:3 box of 6 cells, 12 pixels, high")
    }

    @Test func aTinyTerminalStillShowsOneRowAndRoomForText() {
        let layout = BrowserLayout(columns: 20, rows: 4, rowHeight: 7)
        #expect(layout.visibleRows == 1)
        #expect(layout.thumbnailColumns == 5)
    }
}
