extension ImageHeader {
    /// The header as a disk cache metadata field: format (``ImageFormat/cacheByte``), width and
    /// height (UInt32 LE), orientation, alpha, progressive, components, bit depth, whole-image
    /// bytes per pixel, and whole-image bytes (UInt64 LE) when there are any.
    var cacheField: [UInt8] {
        var field: [UInt8] = [format.cacheByte]
        DiskCacheEntryFormat.appendLittleEndian(UInt32(clamping: width), to: &field)
        DiskCacheEntryFormat.appendLittleEndian(UInt32(clamping: height), to: &field)
        field += [UInt8(clamping: orientation), hasAlpha ? 1 : 0, isProgressive ? 1 : 0,
                  UInt8(clamping: components), UInt8(clamping: bitDepth), UInt8(clamping: wholeImageBytesPerPixel)]
        if wholeImageBytes > 0 { DiskCacheEntryFormat.appendLittleEndian(UInt64(wholeImageBytes), to: &field) }
        return field
    }

    /// The header in a metadata field ``cacheField`` wrote, or `nil` when the
    /// field is not one (the entry is then read as having no source facts).
    /// Fields written before the last byte existed (14 bytes, JPEG and PNG
    /// only) read as needing no whole-image buffer.
    init?(cacheField field: ArraySlice<UInt8>) {
        let field = Array(field)
        guard [14, 15, 23].contains(field.count), let format = ImageFormat(cacheByte: field[0]) else { return nil }
        func integer(at offset: Int, bytes: Int) -> Int {
            (0..<bytes).reduce(0) { $0 | Int(field[offset + $1]) << (8 * $1) }
        }
        func uint32(at offset: Int) -> Int { integer(at: offset, bytes: 4) }
        self.init(format: format, width: uint32(at: 1), height: uint32(at: 5),
                  orientation: Int(field[9]), hasAlpha: field[10] != 0, isProgressive: field[11] != 0,
                  components: Int(field[12]), bitDepth: Int(field[13]),
                  wholeImageBytesPerPixel: field.count >= 15 ? Int(field[14]) : 0,
                  wholeImageBytes: field.count == 23 ? integer(at: 15, bytes: 8) : 0)
    }
}

extension ImageFormat {
    /// The format's byte in a cache field: 0 JPEG, 1 PNG, 2 WebP, 3 GIF, 4 AVIF, 5 HEIC, 6 JPEG XL.
    /// Entries on disk keep them, so they are never renumbered.
    var cacheByte: UInt8 {
        switch self {
        case .jpeg: 0
        case .png: 1
        case .webp: 2
        case .gif: 3
        case .avif: 4
        case .heic: 5
        case .jxl: 6
        }
    }

    /// The format a cache field's byte names; `nil` for a byte no format has.
    init?(cacheByte: UInt8) {
        guard let format = Self.allCases.first(where: { $0.cacheByte == cacheByte }) else { return nil }
        self = format
    }
}
