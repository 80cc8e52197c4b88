/// Draws a frame's images as sixels: only the images that are new or moved
/// are sent, each encoded once while it stays among the ``cachedImages`` most
/// recently shown, and the cells of an image that moved away or left are
/// erased (`CSI n X`), so no stale pixels stay behind text.
@MainActor public final class SixelImageRenderer: ImageRenderer {
    public let background: TerminalColor
    /// Encoded images kept for the next frames: scrolling back costs no encoding.
    public let cachedImages: Int
    public private(set) var bytesWritten = 0
    private var encoded: [ObjectIdentifier: SixelImage] = [:]
    private var recency = RecencyOrder<ObjectIdentifier>()
    private var shown: [ImagePlacement] = []

    public init(background: TerminalColor, cachedImages: Int) {
        self.background = background
        self.cachedImages = max(1, cachedImages)
    }

    public func render(_ images: [ImagePlacement], redrawn: Bool) -> [UInt8] {
        var output: [UInt8] = []
        let previous = redrawn ? [] : shown
        let unchanged = Set(previous).intersection(images)
        for old in previous where !unchanged.contains(old) {
            for row in old.row..<(old.row + old.rows) {
                output += cursorMove(row: row, column: old.column) + Array("\u{1B}[\(old.columns)X".utf8)
            }
        }
        for placement in images {
            recency.touch(placement.image)
            guard !unchanged.contains(placement) else { continue }
            let sixel = encoded[placement.image] ?? SixelImage(thumbnail: placement.thumbnail, background: background)
            encoded[placement.image] = sixel
            output += cursorMove(row: placement.row, column: placement.column) + sixel.bytes
        }
        shown = images
        let onScreen = Set(images.map(\.image))
        while encoded.count > cachedImages, let oldest = recency.removeOldest(where: { !onScreen.contains($0) }) {
            encoded[oldest] = nil
        }
        bytesWritten += output.count
        return output
    }

    /// Sixels are cells' pixels: leaving the alternate screen takes them away.
    public func finish() -> [UInt8] { [] }
}
