import TestSupport
import Testing
import ThumbnailKit
import ThumbnailTerminal

/// Thumbnails as half-block cells: exact colours, fitting, alpha over the background.
@Suite struct HalfBlockImageTests {
    static let black = TerminalColor(red: 0, green: 0, blue: 0)

    /// A thumbnail of exactly these pixels (rows of RGBA), through a lossless PNG decoded at its size.
    func thumbnail(width: Int, height: Int, _ pixels: [[UInt8]]) throws -> Thumbnail {
        let image = RGBAImage(width: width, height: height) { x, y in
            let pixel = pixels[y * width + x]
            return (pixel[0], pixel[1], pixel[2], pixel[3])
        }
        return try ThumbnailDecoder(size: .original).decode(try image.png())
    }

    @Test func aTwoByTwoImageIsTwoCellsWithItsTopAndBottomPixels() throws {
        let image = HalfBlockImage(thumbnail: try thumbnail(width: 2, height: 2, [
            [255, 0, 0, 255], [0, 255, 0, 255],
            [0, 0, 255, 255], [10, 20, 30, 255],
        ]), columns: 10, rows: 10, background: Self.black)
        #expect(image.width == 2 && image.height == 1)
        #expect(image.cell(column: 0, row: 0) == HalfBlockCell(top: TerminalColor(red: 255, green: 0, blue: 0),
                                                                bottom: TerminalColor(red: 0, green: 0, blue: 255)))
        #expect(image.cell(column: 1, row: 0) == HalfBlockCell(top: TerminalColor(red: 0, green: 255, blue: 0),
                                                                bottom: TerminalColor(red: 10, green: 20, blue: 30)))
    }

    @Test func anOddHeightLeavesTheLastBottomHalfToTheTerminalsBackground() throws {
        let background = TerminalColor(red: 1, green: 2, blue: 3)
        let image = HalfBlockImage(thumbnail: try thumbnail(width: 1, height: 3, [[9, 9, 9, 255], [8, 8, 8, 255], [7, 7, 7, 255]]),
                                   columns: 5, rows: 5, background: background)
        #expect(image.height == 2)
        #expect(image.cell(column: 0, row: 1) == HalfBlockCell(top: TerminalColor(red: 7, green: 7, blue: 7), bottom: nil))
    }

    @Test func transparentPixelsAreBlendedOverTheBackground() throws {
        let background = TerminalColor(red: 200, green: 100, blue: 0)
        let image = HalfBlockImage(thumbnail: try thumbnail(width: 1, height: 2, [[255, 0, 0, 128], [0, 0, 0, 0]]),
                                   columns: 1, rows: 1, background: background)
        // 255·128/255 + 200·127/255 = 228 (rounded); 0 + 100·127/255 = 50; 0.
        #expect(image.cell(column: 0, row: 0) == HalfBlockCell(top: TerminalColor(red: 228, green: 50, blue: 0), bottom: background))
    }

    @Test func aLargerThumbnailIsFittedKeepingItsAspect() throws {
        let pixels = Array(repeating: [UInt8](arrayLiteral: 50, 60, 70, 255), count: 100 * 50)
        let image = HalfBlockImage(thumbnail: try thumbnail(width: 100, height: 50, pixels), columns: 10, rows: 10,
                                   background: Self.black)
        #expect(image.width == 10 && image.height == 3, "10×5 pixels: three cells high")
        #expect(image.cell(column: 9, row: 2).top == TerminalColor(red: 50, green: 60, blue: 70))
    }
}
