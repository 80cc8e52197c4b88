// libFuzzer harness over KeyDecoder (scripts/fuzz.sh keys), compiled together with
// Sources/ThumbnailTerminal/Input/KeyDecoder.swift and Key.swift.
//
// The input is what a terminal sends in raw mode, read whole and read in pieces. A finding: a crash,
// keys that depend on where the reads split the bytes (the first byte picks the piece size), or more
// bytes held for an incomplete sequence than KeyDecoder.longestSequence.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeyDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var whole = KeyDecoder()
    var wholeKeys = whole.decode(bytes)

    let pieceSize = 1 + Int(bytes.first ?? 0) % 7
    var pieces = KeyDecoder()
    var piecesKeys: [Key] = []
    var start = 0
    while start < bytes.count {
        let end = min(start + pieceSize, bytes.count)
        piecesKeys += pieces.decode(Array(bytes[start..<end]))
        precondition(pieces.heldByteCount <= KeyDecoder.longestSequence, "\(pieces.heldByteCount) bytes held")
        start = end
    }
    precondition(piecesKeys == wholeKeys, "keys differ when the input is read \(pieceSize) bytes at a time")

    // A pause: the lone escape (or the sequence that never finished) is dropped, and what waited
    // behind it is decoded, the same way for both decoders.
    wholeKeys += whole.flushPendingEscape()
    piecesKeys += pieces.flushPendingEscape()
    precondition(piecesKeys == wholeKeys, "keys differ after a pause")
    return 0
}
