import Testing
import ThumbnailKit
import ThumbnailTerminal

/// A loader's four states drawn into a region of the screen: each by its
/// default view or by the one that replaces it, clipped to the region.
@Suite @MainActor struct LoadingViewTests {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "HTTP 503 from the feed" }
    }

    /// Two lines, 40 cells, from (4, 2) of a 60×6 screen.
    let region = ScreenRegion(column: 4, row: 2, columns: 40, rows: 2)

    /// A view that draws a loaded value as `value: …` on the region's first line.
    func makeSUT(spinner: Spinner = Spinner(), retryHint: String? = nil) -> LoadingView<Int> {
        LoadingView(spinner: spinner, retryHint: retryHint) { value, region, screen in
            screen.put("value: \(value)", line: 0, of: region, foreground: nil)
        }
    }

    func draw(_ state: LoadingState<Int>, with view: LoadingView<Int>) -> ScreenBuffer {
        var screen = ScreenBuffer(columns: 60, rows: 6)
        view.draw(state, in: region, on: &screen)
        return screen
    }

    /// The region's line `line`, trailing blanks dropped.
    func text(_ screen: ScreenBuffer, line: Int) -> String {
        let row = screen.text(ofRow: region.row + line)
        let start = row.index(row.startIndex, offsetBy: region.column)
        return String(row[start...].reversed().drop { $0 == " " }.reversed())
    }

    func isBlank(_ screen: ScreenBuffer) -> Bool {
        (0..<screen.rows).allSatisfy { screen.text(ofRow: $0).allSatisfy { $0 == " " } }
    }

    @Test func idleDrawsNothingByDefault() {
        #expect(isBlank(draw(.idle, with: makeSUT())))
    }

    @Test func loadingShowsTheSpinnerThePercentAndTheRetryMessage() {
        let progress = LoadingProgress(message: "retrying in 2 s (attempt 2 of 3)", percent: 42)
        let screen = draw(.loading(progress), with: makeSUT())
        #expect(text(screen, line: 0) == "\(Spinner.frames[0]) 42%  retrying in 2 s (attempt 2 of 3)")
    }

    @Test func loadingWithoutProgressStillShowsTheSpinner() {
        #expect(text(draw(.loading(nil), with: makeSUT()), line: 0) == "\(Spinner.frames[0])")
    }

    @Test func aCancelledLoadSaysSo() {
        #expect(text(draw(.loading(.canceled), with: makeSUT()), line: 0) == "cancelled")
    }

    @Test func loadedDrawsTheCallersContent() {
        #expect(text(draw(.loaded(7), with: makeSUT()), line: 0) == "value: 7")
    }

    @Test func aFailureShowsTheRetryHintThenTheReason() {
        #expect(text(draw(.failure(Refused()), with: makeSUT(retryHint: "r: retry")), line: 0)
            == "✗ r: retry · HTTP 503 from the feed")
        #expect(text(draw(.failure(Refused()), with: makeSUT()), line: 0) == "✗ HTTP 503 from the feed",
                "no hint when the failure cannot be retried")
    }

    @Test func replacedViewsAreUsedInsteadOfTheDefaults() {
        let view = makeSUT(retryHint: "r: retry")
            .emptyView { region, screen in screen.put("nothing yet", line: 1, of: region, foreground: nil) }
            .progressView { progress, _, region, screen in
                screen.put("busy \(progress?.percent ?? -1)", line: 1, of: region, foreground: nil)
            }
            .errorView { error, region, screen in screen.put("oh no: \(error)", line: 1, of: region, foreground: nil) }

        let idle = draw(.idle, with: view)
        #expect(text(idle, line: 1) == "nothing yet")
        let loading = draw(.loading(LoadingProgress(percent: 30)), with: view)
        #expect(text(loading, line: 1) == "busy 30" && text(loading, line: 0).isEmpty, "no default spinner")
        let failed = draw(.failure(Refused()), with: view)
        #expect(text(failed, line: 1) == "oh no: HTTP 503 from the feed" && text(failed, line: 0).isEmpty)
        #expect(text(draw(.loaded(3), with: view), line: 0) == "value: 3", "the content is the caller's still")
    }

    @Test func theSpinnerAdvancesOneFrameATickAndComesRound() {
        var spinner = Spinner()
        var frames: [ScreenBuffer] = []
        for _ in 0...Spinner.frames.count {
            frames.append(draw(.loading(nil), with: makeSUT(spinner: spinner)))
            spinner.advance()
        }
        let shown = frames.map { text($0, line: 0) }
        #expect(shown.dropLast() == Spinner.frames.map { String($0) }[...], "one step per tick, every frame once")
        #expect(shown.last == shown.first, "and round again")
        // Drawn as a terminal would, each frame only as its changes: the spinner cell is rewritten.
        let terminal = ScreenBuffer.replay(Array(frames.prefix(2)))
        #expect(terminal.text(ofRow: region.row).contains(Spinner.frames[1]))
    }

    @Test func textIsClippedToTheRegion() {
        let narrow = ScreenRegion(column: 4, row: 2, columns: 12, rows: 1)
        var screen = ScreenBuffer(columns: 60, rows: 6)
        makeSUT(retryHint: "r: retry").draw(.failure(Refused()), in: narrow, on: &screen)
        #expect(screen.text(ofRow: 2) == "    ✗ r: retry ·" + String(repeating: " ", count: 44), "cut at the region's edge")
        makeSUT().draw(.loaded(1), in: narrow.inset(rows: 1), on: &screen)
        #expect(screen.text(ofRow: 3).allSatisfy { $0 == " " }, "a region without lines draws nothing")
    }

    @Test func itDrawsALoadersCurrentState() async {
        let loader = BlockLoadable { 41 + 1 }
        var screen = ScreenBuffer(columns: 60, rows: 6)
        makeSUT().draw(loader, in: region, on: &screen)
        #expect(isBlank(screen), "idle before loading")
        await loader.load()
        makeSUT().draw(loader, in: region, on: &screen)
        #expect(text(screen, line: 0) == "value: 42")
    }
}
