import ThumbnailKit

/// A thumbnail as terminal cells of two pixels each: the upper half block
/// `▀` takes the top pixel as its colour and the bottom pixel as the cell's
/// background. Transparent pixels are blended over a background colour; an
/// odd-height image's last half row is left to the terminal's background.
package struct HalfBlockImage: Sendable, Hashable {
    /// Width in cells (one pixel each).
    package let width: Int
    /// Height in cells (two pixels each).
    package let height: Int
    private let cells: [HalfBlockCell]

    /// Fits `thumbnail` in `columns` × `rows` cells (`rows` × 2 pixels high),
    /// keeping its aspect ratio and never enlarging it.
    package init(thumbnail: Thumbnail, columns: Int, rows: Int, background: TerminalColor) {
        let box = ThumbnailSize.fit(width: max(1, columns), height: max(1, 2 * rows))
        let fitted = box.fitting(width: thumbnail.width, height: thumbnail.height)
        let image = (fitted.width < thumbnail.width || fitted.height < thumbnail.height)
            ? ((try? thumbnail.downscaled(toWidth: fitted.width, height: fitted.height)) ?? thumbnail)
            : thumbnail
        width = image.width
        height = (image.height + 1) / 2
        var cells: [HalfBlockCell] = []
        cells.reserveCapacity(width * height)
        for row in 0..<height {
            for column in 0..<width {
                let bottom = 2 * row + 1 < image.height
                    ? Self.blend(image.pixel(x: column, y: 2 * row + 1), over: background) : nil
                cells.append(HalfBlockCell(top: Self.blend(image.pixel(x: column, y: 2 * row), over: background),
                                           bottom: bottom))
            }
        }
        self.cells = cells
    }

    /// The cell at `column`, `row` (cells from the top left).
    package func cell(column: Int, row: Int) -> HalfBlockCell {
        cells[row * width + column]
    }

    /// Straight alpha over an opaque background, rounded.
    static func blend(_ pixel: (r: UInt8, g: UInt8, b: UInt8, a: UInt8), over background: TerminalColor) -> TerminalColor {
        let alpha = Int(pixel.a)
        func mix(_ value: UInt8, _ under: UInt8) -> UInt8 {
            let over: Int = Int(value) * alpha
            let below: Int = Int(under) * (255 - alpha)
            return UInt8((over + below + 127) / 255)
        }
        return TerminalColor(red: mix(pixel.r, background.red), green: mix(pixel.g, background.green),
                             blue: mix(pixel.b, background.blue))
    }
}

/// One cell of a ``HalfBlockImage``: the colours of its upper and lower pixel.
package struct HalfBlockCell: Sendable, Hashable {
    package var top: TerminalColor
    /// `nil` below the last pixel row of an odd-height image: the terminal's own background.
    package var bottom: TerminalColor?

    package init(top: TerminalColor, bottom: TerminalColor?) {
        self.top = top
        self.bottom = bottom
    }
}
