import ExtrasBase64
import ThumbnailKit

/// A thumbnail as one of iTerm2's inline images (also WezTerm's and
/// Konsole's): `OSC 1337 ; File=inline=1;size=…;width=…px;height=…px:` the
/// PNG in base64, `BEL`, drawn at the cursor at its own pixel size, its alpha
/// over the terminal's own background.
package struct ITermInlineImage: Sendable, Hashable {
    /// The whole escape sequence.
    package let bytes: [UInt8]

    /// `nil` when the thumbnail cannot be encoded as PNG.
    package init?(thumbnail: Thumbnail) {
        guard let png = try? ThumbnailEncoder().encode(thumbnail, as: .png) else { return nil }
        let head = "\u{1B}]1337;File=inline=1;size=\(png.count);width=\(thumbnail.width)px;height=\(thumbnail.height)px;"
            + "preserveAspectRatio=1:"
        bytes = Array(head.utf8) + Base64.encodeToBytes(bytes: png) + [0x07]
    }
}
