extension ImageHeader {
    /// The header as a disk cache metadata field: format, width and height
    /// (UInt32 LE), orientation, alpha, progressive, components, bit depth.
    var cacheField: [UInt8] {
        var field: [UInt8] = [format == .png ? 1 : 0]
        DiskCacheEntryFormat.appendLittleEndian(UInt32(clamping: width), to: &field)
        DiskCacheEntryFormat.appendLittleEndian(UInt32(clamping: height), to: &field)
        field += [UInt8(clamping: orientation), hasAlpha ? 1 : 0, isProgressive ? 1 : 0,
                  UInt8(clamping: components), UInt8(clamping: bitDepth)]
        return field
    }

    /// The header in a metadata field ``cacheField`` wrote, or `nil` when the
    /// field is not one (the entry is then read as having no source facts).
    init?(cacheField field: ArraySlice<UInt8>) {
        let field = Array(field)
        guard field.count == 14, field[0] <= 1 else { return nil }
        func uint32(at offset: Int) -> Int {
            (0..<4).reduce(0) { $0 | Int(field[offset + $1]) << (8 * $1) }
        }
        self.init(format: field[0] == 1 ? .png : .jpeg, width: uint32(at: 1), height: uint32(at: 5),
                  orientation: Int(field[9]), hasAlpha: field[10] != 0, isProgressive: field[11] != 0,
                  components: Int(field[12]), bitDepth: Int(field[13]))
    }
}
