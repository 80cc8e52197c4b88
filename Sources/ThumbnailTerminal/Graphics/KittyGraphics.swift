import ExtrasBase64

/// The kitty graphics protocol's sequences (kitty, WezTerm, Ghostty, Konsole):
/// an image is transmitted once under an id, placed by id wherever a row
/// shows it, and deleted by id when no row can show it any more, so that
/// scrolling moves placements and never sends pixels again.
///
/// Every command carries `q=2`: the terminal answers neither success nor
/// failure, so nothing arrives on standard input among the keys.
package enum KittyGraphics {
    /// The most base64 bytes one escape sequence may carry (the protocol's limit).
    static let chunkBytes = 4096

    /// Transmits `rgba` (`width` × `height` pixels, RGBA8, straight alpha) under
    /// `id` without showing it (`a=t`), in chunks of at most 4096 base64 bytes
    /// (`m=1` on every chunk but the last): one escape sequence per chunk, which
    /// tmux's passthrough wraps one by one. An `opaque` image goes as RGB (`f=24`):
    /// a quarter fewer bytes.
    package static func transmit(rgba: [UInt8], width: Int, height: Int, id: UInt32, opaque: Bool = false) -> [[UInt8]] {
        precondition(rgba.count == width * height * 4, "RGBA8: 4 bytes a pixel")
        return transmit(opaque ? rgb(of: rgba) : rgba, keys: "a=t,f=\(opaque ? 24 : 32),s=\(width),v=\(height),i=\(id),q=2")
    }

    /// Transmits a PNG under `id` (`f=100`), chunked as ``transmit(rgba:width:height:id:opaque:)``
    /// is: a photo's thumbnail in about 60 % of the bytes of its RGB.
    package static func transmit(png: [UInt8], id: UInt32) -> [[UInt8]] {
        transmit(png, keys: "a=t,f=100,i=\(id),q=2")
    }

    /// `data` in base64, chunked, the first chunk with `keys`.
    private static func transmit(_ data: [UInt8], keys firstKeys: String) -> [[UInt8]] {
        let payload = Base64.encodeToBytes(bytes: data)
        var chunks: [[UInt8]] = []
        chunks.reserveCapacity(payload.count / chunkBytes + 1)
        var start = 0
        repeat {
            let end = min(start + chunkBytes, payload.count)
            let more = end < payload.count
            let keys = start == 0 ? firstKeys + (more ? ",m=1" : "") : "m=\(more ? 1 : 0),q=2"
            chunks.append(command(keys, payload: payload[start..<end]))
            start = end
        } while start < payload.count
        return chunks
    }

    /// `rgba` without its alpha bytes.
    private static func rgb(of rgba: [UInt8]) -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: rgba.count / 4 * 3)
        for pixel in 0..<(rgba.count / 4) {
            rgb[3 * pixel] = rgba[4 * pixel]
            rgb[3 * pixel + 1] = rgba[4 * pixel + 1]
            rgb[3 * pixel + 2] = rgba[4 * pixel + 2]
        }
        return rgb
    }

    /// Shows image `id` at the cursor, at its own pixel size (thumbnails are made at
    /// the pixel size of the cells they cover), as placement `placement`: placing it
    /// again with the same ids moves it. The cursor does not move (`C=1`).
    package static func place(id: UInt32, placement: UInt32) -> [UInt8] {
        command("a=p,i=\(id),p=\(placement),C=1,q=2")
    }

    /// Removes placement `placement` of image `id` from the screen; the image stays, ready to be placed again.
    package static func remove(id: UInt32, placement: UInt32) -> [UInt8] {
        command("a=d,d=i,i=\(id),p=\(placement),q=2")
    }

    /// Deletes image `id`: its placements and its data (`d=I`), which frees the terminal's memory.
    package static func delete(id: UInt32) -> [UInt8] {
        command("a=d,d=I,i=\(id),q=2")
    }

    /// Asks whether the terminal speaks the protocol: a 1×1 RGB image sent for a
    /// query only (`a=q`, nothing stored), which a terminal that does answers
    /// `ESC _Gi=31;OK ESC \`. The one command that wants an answer.
    package static let query: [UInt8] = command("i=31,s=1,v=1,a=q,t=d,f=24", payload: Array("AAAA".utf8)[...])

    /// `ESC _G keys [; payload] ESC \`.
    private static func command(_ keys: String, payload: ArraySlice<UInt8>? = nil) -> [UInt8] {
        var bytes: [UInt8] = [0x1B, UInt8(ascii: "_"), UInt8(ascii: "G")] + Array(keys.utf8)
        if let payload {
            bytes.append(UInt8(ascii: ";"))
            bytes += payload
        }
        bytes += [0x1B, UInt8(ascii: "\\")]
        return bytes
    }
}
