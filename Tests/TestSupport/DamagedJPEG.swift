/// A JPEG damaged where it was made: a whole file, EOI included, with a run of bad entropy data.
public enum DamagedJPEG {
    /// The test image `name` with 64 bytes in the middle of its entropy data replaced by stuffed
    /// FF 00 pairs: all-ones bits, which no Huffman table decodes. Everything else, EOI included, is kept.
    /// Why a test image cannot be damaged so.
    public struct NoScan: Error, CustomStringConvertible {
        public let description: String
    }

    public static func make(fromTestImage name: String) throws -> (clean: [UInt8], damaged: [UInt8]) {
        let clean = try Fixtures.bytes(ofTestImage: name)
        guard let sos = clean.indices.dropLast().first(where: { clean[$0] == 0xFF && clean[$0 + 1] == 0xDA }) else {
            throw NoScan(description: "\(name) has no SOS marker")
        }
        let entropyStart = sos + 2 + (Int(clean[sos + 2]) << 8 | Int(clean[sos + 3]))
        var middle = (entropyStart + clean.count) / 2
        while clean[middle - 1] == 0xFF { middle += 1 }  // never split a stuffed FF 00 of the file's own
        var damaged = clean
        for offset in stride(from: 0, to: 64, by: 2) {
            damaged[middle + offset] = 0xFF
            damaged[middle + offset + 1] = 0x00
        }
        return (clean, damaged)
    }
}
