import ThumbnailKit

/// A thumbnail drawn with a graphics protocol over `columns` × `rows` cells
/// whose top left cell is `column`, `row`. Two placements are the same when
/// they show the same thumbnail (its pixel buffer) at the same place.
package struct ImagePlacement: Sendable, Hashable {
    package let thumbnail: Thumbnail
    package let column: Int
    package let row: Int
    package let columns: Int
    package let rows: Int

    package init(thumbnail: Thumbnail, column: Int, row: Int, columns: Int, rows: Int) {
        self.thumbnail = thumbnail
        self.column = column
        self.row = row
        self.columns = columns
        self.rows = rows
    }

    /// The same image `rows` lines further down (up when negative).
    func moved(byRows rows: Int) -> ImagePlacement {
        ImagePlacement(thumbnail: thumbnail, column: column, row: row + rows, columns: columns, rows: self.rows)
    }

    /// Which thumbnail: the identity of its pixels, which a reused row replaces.
    package var image: ObjectIdentifier { ObjectIdentifier(thumbnail.pixels) }

    package static func == (lhs: ImagePlacement, rhs: ImagePlacement) -> Bool {
        lhs.image == rhs.image && lhs.column == rhs.column && lhs.row == rhs.row && lhs.columns == rhs.columns
            && lhs.rows == rhs.rows
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(image)
        hasher.combine(column)
        hasher.combine(row)
    }
}
