import ThumbnailKit

/// Draws a frame's images with the kitty graphics protocol: each thumbnail is
/// transmitted once under an id, placed by id where its row is, moved by
/// placing it again, taken off the screen when its row leaves it, and deleted
/// from the terminal (data and all) once more than ``retainedImages`` are
/// held and it is the least recently shown. Scrolling sends placements, never
/// pixels again, for the thumbnails the terminal still holds.
@MainActor package final class KittyImageRenderer: ImageRenderer {
    /// Images the terminal keeps, on screen or not: rows scrolled back into
    /// view are placed again without their pixels. The list's pool of rows is a good size.
    package let retainedImages: Int
    /// Images whose pixels were sent so far.
    package private(set) var imagesTransmitted = 0
    package var route: GraphicsRoute
    private var ids: [ObjectIdentifier: UInt32] = [:]
    private var recency = RecencyOrder<ObjectIdentifier>()
    private var shown: [ObjectIdentifier: ImagePlacement] = [:]
    private var nextID: UInt32 = 1

    package init(retainedImages: Int, route: GraphicsRoute = .direct) {
        self.retainedImages = max(1, retainedImages)
        self.route = route
    }

    /// Every image goes in placement 1 of its id: placing it again moves it.
    private static let placement: UInt32 = 1

    package func render(_ images: [ImagePlacement], redrawn: Bool) -> [UInt8] {
        var output: [UInt8] = []
        if redrawn { shown = [:] }
        let current = Dictionary(images.map { ($0.image, $0) }) { first, _ in first }
        for (image, _) in shown where current[image] == nil {
            if let id = ids[image] { output += route.unplaced(KittyGraphics.remove(id: id, placement: Self.placement)) }
        }
        for placement in current.values.sorted(by: { ($0.row, $0.column) < ($1.row, $1.column) }) {
            let id: UInt32
            if let known = ids[placement.image] {
                id = known
            } else {
                id = nextID
                nextID = nextID == UInt32.max ? 1 : nextID + 1
                ids[placement.image] = id
                for chunk in Self.transmission(of: placement.thumbnail, id: id) { output += route.unplaced(chunk) }
                imagesTransmitted += 1
            }
            recency.touch(placement.image)
            if shown[placement.image] != placement {
                output += route.placed(KittyGraphics.place(id: id, placement: Self.placement),
                                       row: placement.row, column: placement.column)
            }
        }
        shown = current
        while ids.count > retainedImages, let oldest = recency.removeOldest(where: { current[$0] == nil }) {
            if let id = ids.removeValue(forKey: oldest) { output += route.unplaced(KittyGraphics.delete(id: id)) }
        }
        return output
    }

    /// `thumbnail` as a PNG (its pixels exactly, in fewer bytes than raw for a photo); raw RGB(A)
    /// should it not encode.
    private static func transmission(of thumbnail: Thumbnail, id: UInt32) -> [[UInt8]] {
        if let png = try? ThumbnailEncoder().encode(thumbnail, as: .png) { return KittyGraphics.transmit(png: png, id: id) }
        return KittyGraphics.transmit(rgba: Array(thumbnail.pixels), width: thumbnail.width, height: thumbnail.height, id: id,
                                      opaque: !thumbnail.hasAlpha)
    }

    /// kitty moves placements with the lines they are on; one the move cut is removed.
    package func scroll(by distance: Int, lines: Range<Int>) -> [UInt8] {
        var output: [UInt8] = []
        for (image, placement) in shown {
            switch placement.scrolled(by: distance, lines: lines) {
            case .kept:
                break
            case let .moved(moved):
                shown[image] = moved
            case .cut:
                if let id = ids[image] { output += route.unplaced(KittyGraphics.remove(id: id, placement: Self.placement)) }
                shown[image] = nil
            }
        }
        return output
    }

    /// Deletes every image it sent, data and all.
    package func finish() -> [UInt8] {
        let output = ids.values.sorted().flatMap { route.unplaced(KittyGraphics.delete(id: $0)) }
        ids = [:]
        shown = [:]
        return output
    }
}
