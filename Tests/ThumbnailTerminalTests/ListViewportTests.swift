import Testing
import ThumbnailTerminal

/// Selection and scrolling over a list.
@Suite struct ListViewportTests {
    @Test func movingPastTheWindowScrollsIt() {
        var viewport = ListViewport(itemCount: 100, visibleRows: 5)
        for _ in 0..<7 { viewport.apply(.down) }
        #expect(viewport.selected == 7 && viewport.visibleRange == 3..<8)
        viewport.apply(.up)
        #expect(viewport.visibleRange == 3..<8)
        for _ in 0..<5 { viewport.apply(.up) }
        #expect(viewport.selected == 1 && viewport.visibleRange == 1..<6)
    }

    @Test func pagesTopAndBottomAreClamped() {
        var viewport = ListViewport(itemCount: 12, visibleRows: 5)
        viewport.apply(.pageDown)
        #expect(viewport.selected == 5)
        viewport.apply(.bottom)
        #expect(viewport.selected == 11 && viewport.visibleRange == 7..<12)
        viewport.apply(.pageDown)
        #expect(viewport.selected == 11)
        viewport.apply(.top)
        #expect(viewport.selected == 0 && viewport.visibleRange == 0..<5)
        viewport.apply(.up)
        #expect(viewport.selected == 0)
    }

    @Test func prefetchingCoversThePageAfterTheWindow() {
        var viewport = ListViewport(itemCount: 12, visibleRows: 5)
        #expect(viewport.prefetchRange(distance: 5) == 5..<10)
        viewport.apply(.bottom)
        #expect(viewport.prefetchRange(distance: 5).isEmpty)
    }

    @Test func resizingKeepsTheSelectionOnScreen() {
        var viewport = ListViewport(itemCount: 100, visibleRows: 10)
        for _ in 0..<9 { viewport.apply(.down) }
        viewport.resize(visibleRows: 3)
        #expect(viewport.visibleRange.contains(9) && viewport.visibleRange.count == 3)
    }

    @Test func aShortListShowsAllOfIt() {
        var viewport = ListViewport(itemCount: 3, visibleRows: 10)
        viewport.apply(.bottom)
        #expect(viewport.visibleRange == 0..<3 && viewport.selected == 2)
    }
}
