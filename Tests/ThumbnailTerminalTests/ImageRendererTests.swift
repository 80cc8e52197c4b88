import TestSupport
import Testing
import ThumbnailKit
@testable import ThumbnailTerminal

/// The graphics half of a frame: what each protocol writes as the list moves.
@MainActor @Suite struct ImageRendererTests {
    static func thumbnail(_ number: Int) throws -> Thumbnail {
        try ThumbnailDecoder(size: .original).decode(NumberedImage.png(number, size: 8))
    }

    static func placed(_ thumbnail: Thumbnail, row: Int) -> ImagePlacement {
        ImagePlacement(thumbnail: thumbnail, column: 1, row: row, columns: 4, rows: 3)
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func kittySendsEachThumbnailsPixelsOnceAndMovesPlacementsAsTheListScrolls() throws {
        let (a, b, c) = (try Self.thumbnail(1), try Self.thumbnail(2), try Self.thumbnail(3))
        let renderer = KittyImageRenderer(retainedImages: 8)
        let first = Self.text(renderer.render([Self.placed(a, row: 0), Self.placed(b, row: 4)], redrawn: true))
        #expect(first.components(separatedBy: "a=t,f=100,").count - 1 == 2, "as PNG")
        #expect(first.contains("\u{1B}[1;2H\u{1B}_Ga=p,i=1,p=1,C=1,q=2") && first.contains("\u{1B}[5;2H\u{1B}_Ga=p,i=2,p=1,C=1,q=2"))
        #expect(renderer.imagesTransmitted == 2)

        // Nothing changed: nothing written.
        #expect(renderer.render([Self.placed(a, row: 0), Self.placed(b, row: 4)], redrawn: false).isEmpty)

        // Down a row: a leaves, b moves up, c arrives; only c's pixels are sent.
        let scrolled = Self.text(renderer.render([Self.placed(b, row: 0), Self.placed(c, row: 4)], redrawn: false))
        #expect(scrolled.contains("\u{1B}_Ga=d,d=i,i=1,p=1,q=2"), "a's placement is taken off the screen")
        #expect(scrolled.contains("\u{1B}[1;2H\u{1B}_Ga=p,i=2,p=1,C=1,q=2"))
        #expect(scrolled.components(separatedBy: "a=t,").count - 1 == 1 && scrolled.contains("i=3,q=2"))
        #expect(renderer.imagesTransmitted == 3)

        // Back up: a is placed again from the terminal's copy, no pixels.
        let back = Self.text(renderer.render([Self.placed(a, row: 0), Self.placed(b, row: 4)], redrawn: false))
        #expect(!back.contains("a=t,") && back.contains("\u{1B}[1;2H\u{1B}_Ga=p,i=1,p=1,C=1,q=2"))
        #expect(renderer.imagesTransmitted == 3)
    }

    @Test func kittyDeletesTheLeastRecentlyShownImageOnceItHoldsMoreThanItRetains() throws {
        let thumbnails = try (1...3).map(Self.thumbnail)
        let renderer = KittyImageRenderer(retainedImages: 2)
        _ = renderer.render([Self.placed(thumbnails[0], row: 0)], redrawn: true)
        _ = renderer.render([Self.placed(thumbnails[1], row: 0)], redrawn: false)
        let third = Self.text(renderer.render([Self.placed(thumbnails[2], row: 0)], redrawn: false))
        #expect(third.contains("\u{1B}_Ga=d,d=I,i=1,q=2"), "image 1, the oldest off screen, is freed")
        #expect(!third.contains("d=I,i=2"))
        let again = Self.text(renderer.render([Self.placed(thumbnails[0], row: 0)], redrawn: false))
        #expect(again.contains("a=t,") && again.contains("i=4,"), "a freed image is sent again under a new id")
    }

    @Test func sixelSendsOnlyWhatIsNewOrMovedAndErasesWhereAnImageWas() throws {
        let (a, b) = (try Self.thumbnail(1), try Self.thumbnail(2))
        let background = TerminalColor(red: 0, green: 0, blue: 0)
        let renderer = RedrawingImageRenderer.sixel(background: background, cachedImages: 8)
        let sixelA = SixelImage(thumbnail: a, background: background).bytes
        let sixelB = SixelImage(thumbnail: b, background: background).bytes

        let first = renderer.render([Self.placed(a, row: 0)], redrawn: true)
        #expect(first == cursorMove(row: 0, column: 1) + sixelA)
        #expect(renderer.render([Self.placed(a, row: 0)], redrawn: false).isEmpty)

        // a moves down, b takes its place: a's old cells are erased, then both are drawn.
        let moved = renderer.render([Self.placed(b, row: 0), Self.placed(a, row: 4)], redrawn: false)
        let erase = (0..<3).flatMap { cursorMove(row: $0, column: 1) + Array("\u{1B}[4X".utf8) }
        #expect(moved == erase + cursorMove(row: 0, column: 1) + sixelB + cursorMove(row: 4, column: 1) + sixelA)

        // After a clear (a resize), everything is drawn again and nothing erased.
        #expect(renderer.render([Self.placed(b, row: 0)], redrawn: true) == cursorMove(row: 0, column: 1) + sixelB)
    }

    @Test func kittyMovesPlacementsWithTheLinesAndRemovesOneTheScrollCut() throws {
        let (a, b) = (try Self.thumbnail(1), try Self.thumbnail(2))
        let renderer = KittyImageRenderer(retainedImages: 8)
        _ = renderer.render([Self.placed(a, row: 0), Self.placed(b, row: 4)], redrawn: true)
        // The terminal moved lines 0…7 up by 2: b is at line 2 now, a lost its top line.
        let cut = Self.text(renderer.scroll(by: 2, lines: 0..<8))
        #expect(cut == "\u{1B}_Ga=d,d=i,i=1,p=1,q=2\u{1B}\\")
        #expect(renderer.render([Self.placed(b, row: 2)], redrawn: false).isEmpty, "b is where the terminal moved it")
    }

    @Test func aSixelTheTerminalMovedIsNotSentAgainAndWhatIsLeftOfACutOneIsErased() throws {
        let (a, b) = (try Self.thumbnail(1), try Self.thumbnail(2))
        let background = TerminalColor(red: 0, green: 0, blue: 0)
        let renderer = RedrawingImageRenderer.sixel(background: background, cachedImages: 8)
        _ = renderer.render([Self.placed(a, row: 0), Self.placed(b, row: 4)], redrawn: true)
        // Up by 2 in lines 0…7: a's last line is left at line 0 and erased; b moved to line 2.
        let erased = renderer.scroll(by: 2, lines: 0..<8)
        #expect(erased == cursorMove(row: 0, column: 1) + Array("\u{1B}[4X".utf8))
        #expect(renderer.render([Self.placed(b, row: 2)], redrawn: false).isEmpty, "b is where the terminal moved it")
        // An image outside the lines stays where it was.
        _ = renderer.render([Self.placed(b, row: 2), Self.placed(a, row: 9)], redrawn: false)
        #expect(renderer.scroll(by: 2, lines: 0..<8).isEmpty)
        #expect(renderer.render([Self.placed(b, row: 0), Self.placed(a, row: 9)], redrawn: false).isEmpty)
    }

    @Test func throughTmuxEveryKittySequenceIsWrappedAloneAndPlacedAtThePanesPlaceOnTheTerminal() throws {
        // Noise, which PNG cannot shrink: several chunks.
        let noise = RGBAImage(width: 48, height: 48) { x, y in
            let value = UInt8(truncatingIfNeeded: (x &* 7919) ^ (y &* 104_729) ^ (x &* y &* 31))
            return (value, value &* 3, value &* 5, 255)
        }
        let thumbnail = try ThumbnailDecoder(size: .original).decode(try noise.png())
        let renderer = KittyImageRenderer(retainedImages: 1, route: .tmuxPassthrough(origin: .init(row: 2, column: 51)))
        let first = renderer.render([Self.placed(thumbnail, row: 0)], redrawn: true)
        let png = try ThumbnailEncoder().encode(thumbnail, as: .png)
        let transmission = KittyGraphics.transmit(png: png, id: 1)
        #expect(transmission.count >= 2, "\(png.count) bytes of PNG")
        let place = KittyGraphics.place(id: 1, placement: 1)
        #expect(first == transmission.flatMap(GraphicsRoute.passthrough)
            + GraphicsRoute.passthrough(cursorMove(row: 2, column: 52) + place))
        let left = renderer.render([Self.placed(try Self.thumbnail(2), row: 4)], redrawn: false)
        #expect(Self.text(left).hasPrefix(Self.text(GraphicsRoute.passthrough(KittyGraphics.remove(id: 1, placement: 1)))))
        #expect(Self.text(left).hasSuffix(Self.text(GraphicsRoute.passthrough(KittyGraphics.delete(id: 1)))))
    }

    @Test func throughTmuxASixelAndTheCellsItLeavesAreAtThePanesPlaceOnTheTerminal() throws {
        let (a, b) = (try Self.thumbnail(1), try Self.thumbnail(2))
        let background = TerminalColor(red: 0, green: 0, blue: 0)
        let renderer = RedrawingImageRenderer.sixel(background: background, cachedImages: 8,
                                                    route: .tmuxPassthrough(origin: .init(row: 1, column: 40)))
        let sixelA = SixelImage(thumbnail: a, background: background).bytes
        let sixelB = SixelImage(thumbnail: b, background: background).bytes
        #expect(renderer.render([Self.placed(a, row: 0)], redrawn: true)
            == GraphicsRoute.passthrough(cursorMove(row: 1, column: 41) + sixelA))
        let moved = renderer.render([Self.placed(b, row: 0)], redrawn: false)
        let erase = (0..<3).flatMap { GraphicsRoute.passthrough(cursorMove(row: 1 + $0, column: 41) + Array("\u{1B}[4X".utf8)) }
        #expect(moved == erase + GraphicsRoute.passthrough(cursorMove(row: 1, column: 41) + sixelB))
    }
}

/// tmux's passthrough and what tmux says of a pane.
@Suite struct TmuxPassthroughTests {
    @Test func aSequenceGoesThroughTmuxWithEveryEscapeDoubled() {
        let sequence = Array("\u{1B}_Ga=d,d=I,i=7,q=2\u{1B}\\".utf8)
        #expect(String(decoding: GraphicsRoute.tmuxPassthrough(origin: .init(row: 0, column: 0)).unplaced(sequence), as: UTF8.self)
            == "\u{1B}Ptmux;\u{1B}\u{1B}_Ga=d,d=I,i=7,q=2\u{1B}\u{1B}\\\u{1B}\\")
        #expect(String(decoding: GraphicsRoute.tmuxPassthrough(origin: .init(row: 3, column: 10)).placed(Array("x".utf8), row: 1, column: 2),
                       as: UTF8.self) == "\u{1B}Ptmux;\u{1B}\u{1B}[5;13Hx\u{1B}\\")
        #expect(GraphicsRoute.direct.unplaced(sequence) == sequence)
        #expect(String(decoding: GraphicsRoute.direct.placed(Array("x".utf8), row: 1, column: 2), as: UTF8.self) == "\u{1B}[2;3Hx")
    }

    @Test(arguments: [
        ("0 51 1 on top", TmuxPane(origin: .init(row: 1, column: 51), allowsPassthrough: true)),
        ("0 51 1 2 top", TmuxPane(origin: .init(row: 2, column: 51), allowsPassthrough: true)),
        ("12 0 0 on bottom", TmuxPane(origin: .init(row: 12, column: 0), allowsPassthrough: false)),
        ("5 7 1 off top\n", TmuxPane(origin: .init(row: 5, column: 7), allowsPassthrough: true)),
        ("0 0  on bottom", TmuxPane(origin: .init(row: 0, column: 0), allowsPassthrough: true)),  // tmux 3.2: no option, always through
    ])
    func tmuxsAnswerGivesThePanesPlaceOnTheTerminalAndWhetherItPassesGraphicsOn(output: String, pane: TmuxPane) {
        #expect(TmuxPane.parse(output) == pane)
    }

    @Test func anAnswerThatIsNotTmuxsIsNoPane() {
        #expect(TmuxPane.parse("") == nil)
        #expect(TmuxPane.parse("no server running on /tmp/tmux-0/default") == nil)
        #expect(TmuxPane.parse("a b 1 on top") == nil)
    }
}
