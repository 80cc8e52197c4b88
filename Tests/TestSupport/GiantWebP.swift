/// Lossy WebPs with alpha of any size, written directly: a VP8 key frame whose
/// macroblocks all predict DC with no residual (a flat mid-gray picture) and a
/// losslessly compressed alpha plane of one value, so a 10000×10000 file is
/// about 170 KB and takes a second to make. libwebp still decodes the alpha
/// plane whole (a byte a pixel) before any row comes out, which is what the
/// memory tests want to see.
public enum GiantWebP {
    /// The alpha every pixel gets.
    public static let alpha: UInt8 = 200

    public static func lossyWithAlpha(width: Int, height: Int) -> [UInt8] {
        precondition((1...16_383).contains(width) && (1...16_383).contains(height))
        let vp8 = keyFrame(width: width, height: height)
        let alph = [UInt8(1)] + flatAlphaStream()  // no pre-processing, no filter, compressed losslessly
        let vp8x: [UInt8] = [0x10, 0, 0, 0] + le24(width - 1) + le24(height - 1)  // the alpha flag
        let body = [UInt8]("WEBP".utf8) + chunk("VP8X", vp8x) + chunk("ALPH", alph) + chunk("VP8 ", vp8)
        return [UInt8]("RIFF".utf8) + le32(body.count) + body
    }

    /// A VP8L image stream without its header (an ALPH payload): no transform, no colour
    /// cache, and a single-symbol prefix code for each channel, so every pixel takes no bits.
    private static func flatAlphaStream() -> [UInt8] {
        var bits = LSBBitWriter()
        bits.write(0, count: 1)  // no transform
        bits.write(0, count: 1)  // no colour cache
        bits.write(0, count: 1)  // no meta prefix codes
        for symbol in [Int(alpha), 0, 0, 0, 0] {  // green (the alpha), red, blue, alpha, distance
            bits.write(1, count: 1)  // a simple code
            bits.write(0, count: 1)  // of one symbol
            bits.write(symbol > 1 ? 1 : 0, count: 1)  // written in 8 bits, or in 1
            bits.write(symbol, count: symbol > 1 ? 8 : 1)
        }
        return bits.bytes + [0, 0, 0, 0]
    }

    /// A key frame: the header, the first partition (every macroblock skipped, DC-predicted)
    /// and a token partition that is never read.
    private static func keyFrame(width: Int, height: Int) -> [UInt8] {
        var header = BoolEncoder()
        header.literal(0, bits: 1)  // colour space
        header.literal(0, bits: 1)  // clamping
        header.literal(0, bits: 1)  // no segmentation
        header.literal(0, bits: 1)  // filter type
        header.literal(0, bits: 6)  // loop filter level
        header.literal(0, bits: 3)  // sharpness
        header.literal(0, bits: 1)  // no loop filter deltas
        header.literal(0, bits: 2)  // one token partition
        header.literal(40, bits: 7)  // quantiser index
        for _ in 0..<5 { header.literal(0, bits: 1) }  // no quantiser deltas
        header.literal(0, bits: 1)  // refresh_entropy_probs
        for probability in coefficientUpdateProbabilities { header.bool(false, probability: probability) }
        header.literal(1, bits: 1)  // macroblocks may skip their coefficients
        header.literal(1, bits: 8)  // prob_skip_false: nearly every one does
        let macroblocks = ((width + 15) / 16) * ((height + 15) / 16)
        for _ in 0..<macroblocks {
            header.bool(true, probability: 1)  // skipped
            header.bool(true, probability: 145)  // luma: not B_PRED
            header.bool(false, probability: 156)
            header.bool(false, probability: 163)  // DC_PRED
            header.bool(false, probability: 142)  // chroma: DC_PRED
        }
        let first = header.finish()
        let size = first.count
        precondition(size < 1 << 19, "the first partition must fit its 19-bit size")
        let tag = size << 5 | 1 << 4  // a key frame (bit 0 clear), version 0, shown
        return [UInt8(tag & 0xFF), UInt8(tag >> 8 & 0xFF), UInt8(tag >> 16 & 0xFF), 0x9D, 0x01, 0x2A]
            + [UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF), UInt8(height >> 8)]
            + first + [0, 0, 0, 0]
    }

    private static func chunk(_ name: String, _ payload: [UInt8]) -> [UInt8] {
        [UInt8](name.utf8) + le32(payload.count) + payload + (payload.count.isMultiple(of: 2) ? [] : [0])
    }

    private static func le24(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)] }
    private static func le32(_ value: Int) -> [UInt8] { le24(value) + [UInt8(value >> 24 & 0xFF)] }

    /// RFC 6386 13.4's coeff_update_probs, in order: the chance that each token probability is not updated.
    private static let coefficientUpdateProbabilities: [Int] = [
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 176, 246, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        223, 241, 252, 255, 255, 255, 255, 255, 255, 255, 255, 249, 253, 253, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 244, 252, 255, 255, 255, 255, 255, 255, 255, 255, 234, 254, 254, 255, 255, 255, 255, 255, 255, 255, 255,
        253, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 246, 254, 255, 255, 255, 255, 255, 255, 255, 255,
        239, 253, 254, 255, 255, 255, 255, 255, 255, 255, 255, 254, 255, 254, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 248, 254, 255, 255, 255, 255, 255, 255, 255, 255, 251, 255, 254, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 253, 254, 255, 255, 255, 255, 255, 255, 255, 255,
        251, 254, 254, 255, 255, 255, 255, 255, 255, 255, 255, 254, 255, 254, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 254, 253, 255, 254, 255, 255, 255, 255, 255, 255, 250, 255, 254, 255, 254, 255, 255, 255, 255, 255, 255,
        254, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        217, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 225, 252, 241, 253, 255, 255, 254, 255, 255, 255, 255,
        234, 250, 241, 250, 253, 255, 253, 254, 255, 255, 255, 255, 254, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        223, 254, 254, 255, 255, 255, 255, 255, 255, 255, 255, 238, 253, 254, 254, 255, 255, 255, 255, 255, 255, 255,
        255, 248, 254, 255, 255, 255, 255, 255, 255, 255, 255, 249, 254, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 253, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        247, 254, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 253, 254, 255, 255, 255, 255, 255, 255, 255, 255, 252, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 254, 254, 255, 255, 255, 255, 255, 255, 255, 255,
        253, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 254, 253, 255, 255, 255, 255, 255, 255, 255, 255, 250, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        254, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        186, 251, 250, 255, 255, 255, 255, 255, 255, 255, 255, 234, 251, 244, 254, 255, 255, 255, 255, 255, 255, 255,
        251, 251, 243, 253, 254, 255, 254, 255, 255, 255, 255, 255, 253, 254, 255, 255, 255, 255, 255, 255, 255, 255,
        236, 253, 254, 255, 255, 255, 255, 255, 255, 255, 255, 251, 253, 253, 254, 254, 255, 255, 255, 255, 255, 255,
        255, 254, 254, 255, 255, 255, 255, 255, 255, 255, 255, 254, 254, 254, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 254, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        254, 254, 255, 255, 255, 255, 255, 255, 255, 255, 255, 254, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 254, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        248, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 250, 254, 252, 254, 255, 255, 255, 255, 255, 255, 255,
        248, 254, 249, 253, 255, 255, 255, 255, 255, 255, 255, 255, 253, 253, 255, 255, 255, 255, 255, 255, 255, 255,
        246, 253, 253, 255, 255, 255, 255, 255, 255, 255, 255, 252, 254, 251, 254, 254, 255, 255, 255, 255, 255, 255,
        255, 254, 252, 255, 255, 255, 255, 255, 255, 255, 255, 248, 254, 253, 255, 255, 255, 255, 255, 255, 255, 255,
        253, 255, 254, 254, 255, 255, 255, 255, 255, 255, 255, 255, 251, 254, 255, 255, 255, 255, 255, 255, 255, 255,
        245, 251, 254, 255, 255, 255, 255, 255, 255, 255, 255, 253, 253, 254, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 251, 253, 255, 255, 255, 255, 255, 255, 255, 255, 252, 253, 254, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 254, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 252, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        249, 255, 254, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 254, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 253, 255, 255, 255, 255, 255, 255, 255, 255, 250, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        254, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    ]
}

/// VP8's boolean entropy coder (RFC 6386, 7.3).
private struct BoolEncoder {
    private(set) var bytes: [UInt8] = []
    private var range: UInt32 = 255
    private var bottom: UInt32 = 0
    private var bitCount = 24

    /// Codes `value` with `probability` (1…255) out of 256 of it being false.
    mutating func bool(_ value: Bool, probability: Int) {
        let split = 1 + (((range - 1) * UInt32(probability)) >> 8)
        if value {
            bottom &+= split
            range -= split
        } else {
            range = split
        }
        while range < 128 {
            range <<= 1
            if bottom & (1 << 31) != 0 { carry() }
            bottom <<= 1
            bitCount -= 1
            if bitCount == 0 {
                bytes.append(UInt8(bottom >> 24))
                bottom &= (1 << 24) - 1
                bitCount = 8
            }
        }
    }

    /// An unsigned `bits`-bit literal, most significant bit first, each at even odds.
    mutating func literal(_ value: Int, bits: Int) {
        for bit in stride(from: bits - 1, through: 0, by: -1) { bool((value >> bit) & 1 == 1, probability: 128) }
    }

    private mutating func carry() {
        var index = bytes.count - 1
        while index >= 0, bytes[index] == 255 {
            bytes[index] = 0
            index -= 1
        }
        if index >= 0 { bytes[index] += 1 }
    }

    mutating func finish() -> [UInt8] {
        var value = bottom
        if value & (1 << UInt32(32 - bitCount)) != 0 { carry() }
        value <<= UInt32(bitCount & 7)
        for _ in 0..<(bitCount >> 3) { value <<= 8 }
        for _ in 0..<4 {
            bytes.append(UInt8(value >> 24))
            value <<= 8
        }
        return bytes
    }
}

/// Bits least significant first, as VP8L reads them.
private struct LSBBitWriter {
    private(set) var bytes: [UInt8] = []
    private var used = 0

    mutating func write(_ value: Int, count: Int) {
        for bit in 0..<count {
            if used == 0 { bytes.append(0) }
            if (value >> bit) & 1 == 1 { bytes[bytes.count - 1] |= UInt8(1 << used) }
            used = (used + 1) & 7
        }
    }
}
