import ExtrasBase64

/// The kitty graphics protocol's sequences (kitty, WezTerm, Ghostty, Konsole):
/// an image is transmitted once under an id, placed by id wherever a row
/// shows it, and deleted by id when no row can show it any more, so that
/// scrolling moves placements and never sends pixels again.
///
/// Every command carries `q=2`: the terminal answers neither success nor
/// failure, so nothing arrives on standard input among the keys.
public enum KittyGraphics {
    /// The most base64 bytes one escape sequence may carry (the protocol's limit).
    static let chunkBytes = 4096

    /// Transmits `rgba` (`width` × `height` pixels, RGBA8, straight alpha) under
    /// `id` without showing it (`a=t`), in chunks of at most 4096 base64 bytes
    /// (`m=1` on every chunk but the last): one escape sequence per chunk, which
    /// tmux's passthrough wraps one by one.
    public static func transmit(rgba: [UInt8], width: Int, height: Int, id: UInt32) -> [[UInt8]] {
        precondition(rgba.count == width * height * 4, "RGBA8: 4 bytes a pixel")
        let payload = Base64.encodeToBytes(bytes: rgba)
        var chunks: [[UInt8]] = []
        chunks.reserveCapacity(payload.count / chunkBytes + 1)
        var start = 0
        repeat {
            let end = min(start + chunkBytes, payload.count)
            let more = end < payload.count
            let keys = start == 0 ? "a=t,f=32,s=\(width),v=\(height),i=\(id),q=2" + (more ? ",m=1" : "")
                : "m=\(more ? 1 : 0),q=2"
            chunks.append(command(keys, payload: payload[start..<end]))
            start = end
        } while start < payload.count
        return chunks
    }

    /// Shows image `id` at the cursor, at its own pixel size (thumbnails are made at
    /// the pixel size of the cells they cover), as placement `placement`: placing it
    /// again with the same ids moves it. The cursor does not move (`C=1`).
    public static func place(id: UInt32, placement: UInt32) -> [UInt8] {
        command("a=p,i=\(id),p=\(placement),C=1,q=2")
    }

    /// Removes placement `placement` of image `id` from the screen; the image stays, ready to be placed again.
    public static func remove(id: UInt32, placement: UInt32) -> [UInt8] {
        command("a=d,d=i,i=\(id),p=\(placement),q=2")
    }

    /// Deletes image `id`: its placements and its data (`d=I`), which frees the terminal's memory.
    public static func delete(id: UInt32) -> [UInt8] {
        command("a=d,d=I,i=\(id),q=2")
    }

    /// Asks whether the terminal speaks the protocol: a 1×1 RGB image sent for a
    /// query only (`a=q`, nothing stored), which a terminal that does answers
    /// `ESC _Gi=31;OK ESC \`. The one command that wants an answer.
    public static let query: [UInt8] = command("i=31,s=1,v=1,a=q,t=d,f=24", payload: Array("AAAA".utf8)[...])

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
