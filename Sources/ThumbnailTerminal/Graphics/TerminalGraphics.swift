import ThumbnailKit

/// How a list draws its thumbnails, once the protocol is known.
package enum TerminalGraphics: Sendable, Hashable {
    /// Two pixels a cell in half blocks (`▀`): any terminal with colour.
    case halfBlocks
    /// The kitty graphics protocol, at `cell` pixels a cell.
    case kitty(cell: CellPixelSize)
    /// Sixel images, at `cell` pixels a cell.
    case sixel(cell: CellPixelSize)
    /// iTerm2's inline images, at `cell` pixels a cell.
    case iTerm(cell: CellPixelSize)

    /// The box a thumbnail drawn over `columns` × `rows` cells is made for: its pixels exactly.
    package func thumbnailSize(columns: Int, rows: Int) -> ThumbnailSize {
        switch self {
        case .halfBlocks: .fit(width: columns, height: 2 * rows)
        case let .kitty(cell), let .sixel(cell), let .iTerm(cell):
            .fit(width: columns * cell.width, height: rows * cell.height)
        }
    }

    /// The same protocol at cells of `cell` pixels (half blocks have no pixel size).
    package func at(cell: CellPixelSize) -> TerminalGraphics {
        switch self {
        case .halfBlocks: .halfBlocks
        case .kitty: .kitty(cell: cell)
        case .sixel: .sixel(cell: cell)
        case .iTerm: .iTerm(cell: cell)
        }
    }

    /// What draws the images of a frame (over the thumbnails' background colour); `nil` for half blocks, which are text.
    /// - Parameters:
    ///   - retained: images kept ready beyond those on screen (the list's pool of rows).
    ///   - route: how its sequences reach the terminal.
    @MainActor package func makeRenderer(retained: Int, route: GraphicsRoute = .direct) -> (any ImageRenderer)? {
        switch self {
        case .halfBlocks: nil
        case .kitty: KittyImageRenderer(retainedImages: retained, route: route)
        case .sixel: RedrawingImageRenderer.sixel(background: Palette.background, cachedImages: retained, route: route)
        case .iTerm: RedrawingImageRenderer.iTerm(cachedImages: retained, route: route)
        }
    }
}
