extension ImageHeader {
    /// The format's byte in ``cacheField``: 0 JPEG, 1 PNG, 2 WebP.
    private static let formatCodes: [ImageFormat: UInt8] = [.jpeg: 0, .png: 1, .webp: 2]

    /// The header as a disk cache metadata field: format, width and height
    /// (UInt32 LE), orientation, alpha, progressive, components, bit depth,
    /// whole-image bytes per pixel.
    var cacheField: [UInt8] {
        guard let code = Self.formatCodes[format] else { preconditionFailure("no cache code for \(format)") }
        var field: [UInt8] = [code]
        DiskCacheEntryFormat.appendLittleEndian(UInt32(clamping: width), to: &field)
        DiskCacheEntryFormat.appendLittleEndian(UInt32(clamping: height), to: &field)
        field += [UInt8(clamping: orientation), hasAlpha ? 1 : 0, isProgressive ? 1 : 0,
                  UInt8(clamping: components), UInt8(clamping: bitDepth), UInt8(clamping: wholeImageBytesPerPixel)]
        return field
    }

    /// The header in a metadata field ``cacheField`` wrote, or `nil` when the
    /// field is not one (the entry is then read as having no source facts).
    /// Fields written before the last byte existed (14 bytes, JPEG and PNG
    /// only) read as needing no whole-image buffer.
    init?(cacheField field: ArraySlice<UInt8>) {
        let field = Array(field)
        guard field.count == 14 || field.count == 15,
              let format = Self.formatCodes.first(where: { $0.value == field[0] })?.key
        else { return nil }
        func uint32(at offset: Int) -> Int {
            (0..<4).reduce(0) { $0 | Int(field[offset + $1]) << (8 * $1) }
        }
        self.init(format: format, width: uint32(at: 1), height: uint32(at: 5),
                  orientation: Int(field[9]), hasAlpha: field[10] != 0, isProgressive: field[11] != 0,
                  components: Int(field[12]), bitDepth: Int(field[13]),
                  wholeImageBytesPerPixel: field.count == 15 ? Int(field[14]) : 0)
    }
}
