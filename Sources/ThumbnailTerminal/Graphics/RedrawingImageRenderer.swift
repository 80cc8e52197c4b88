import ThumbnailKit

/// Draws a frame's images with a protocol that writes pixels into cells
/// (sixel, iTerm2's inline images): only the images that are new or moved are
/// sent, each encoded once while it stays among the ``cachedImages`` most
/// recently shown, and the cells of an image that moved away or left are
/// erased (`CSI n X`), so no stale pixels stay behind text.
@MainActor package final class RedrawingImageRenderer: ImageRenderer {
    /// Encoded images kept for the next frames: scrolling back costs no encoding.
    package let cachedImages: Int
    package var route: GraphicsRoute
    private let encode: (Thumbnail) -> [UInt8]
    private var encoded: [ObjectIdentifier: [UInt8]] = [:]
    private var recency = RecencyOrder<ObjectIdentifier>()
    private var shown: [ImagePlacement] = []

    /// - Parameter encode: the escape sequence that draws a thumbnail at the cursor.
    package init(cachedImages: Int, route: GraphicsRoute = .direct, encode: @escaping (Thumbnail) -> [UInt8]) {
        self.cachedImages = max(1, cachedImages)
        self.route = route
        self.encode = encode
    }

    /// Sixel images over `background`.
    package static func sixel(background: TerminalColor, cachedImages: Int, route: GraphicsRoute = .direct)
        -> RedrawingImageRenderer {
        RedrawingImageRenderer(cachedImages: cachedImages, route: route) { SixelImage(thumbnail: $0, background: background).bytes }
    }

    /// iTerm2's inline images, as PNG.
    package static func iTerm(cachedImages: Int, route: GraphicsRoute = .direct) -> RedrawingImageRenderer {
        RedrawingImageRenderer(cachedImages: cachedImages, route: route) { ITermInlineImage(thumbnail: $0)?.bytes ?? [] }
    }

    package func render(_ images: [ImagePlacement], redrawn: Bool) -> [UInt8] {
        var output: [UInt8] = []
        let previous = redrawn ? [] : shown
        let unchanged = Set(previous).intersection(images)
        for old in previous where !unchanged.contains(old) {
            output += erase(old, rows: old.row..<(old.row + old.rows))
        }
        for placement in images {
            recency.touch(placement.image)
            guard !unchanged.contains(placement) else { continue }
            let bytes = encoded[placement.image] ?? encode(placement.thumbnail)
            encoded[placement.image] = bytes
            output += route.placed(bytes, row: placement.row, column: placement.column)
        }
        shown = images
        let onScreen = Set(images.map(\.image))
        while encoded.count > cachedImages, let oldest = recency.removeOldest(where: { !onScreen.contains($0) }) {
            encoded[oldest] = nil
        }
        return output
    }

    /// The terminal moved the images' pixels with the lines; what is left of one the move cut is erased.
    package func scroll(by distance: Int, lines: Range<Int>) -> [UInt8] {
        var output: [UInt8] = []
        shown = shown.compactMap { placement in
            switch placement.scrolled(by: distance, lines: lines) {
            case .kept:
                return placement
            case let .moved(moved):
                return moved
            case let .cut(moved):
                output += erase(moved, rows: (moved.row..<(moved.row + moved.rows)).clamped(to: lines))
                return nil
            }
        }
        return output
    }

    /// Blanks `rows` of the cells `placement` covers (`CSI n X` on each).
    private func erase(_ placement: ImagePlacement, rows: Range<Int>) -> [UInt8] {
        rows.flatMap { row in route.placed(Array("\u{1B}[\(placement.columns)X".utf8), row: row, column: placement.column) }
    }

    /// These images are cells' pixels: leaving the alternate screen takes them away.
    package func finish() -> [UInt8] { [] }
}
