import CThumbnail

/// What an image's header says, read without decoding any pixels.
public struct ImageHeader: Sendable, Hashable {
    /// The container format, sniffed from magic bytes.
    public let format: ImageFormat
    /// Width as stored, before EXIF orientation (a WebP's canvas).
    public let width: Int
    /// Height as stored, before EXIF orientation (a WebP's canvas).
    public let height: Int
    /// EXIF orientation 1…8 (1 when absent, 0 or out of range).
    public let orientation: Int
    /// An alpha channel, PNG transparency, a WebP animation whose first frame leaves part of the
    /// canvas empty, or a GIF whose first frame has a transparent index or does not cover the whole screen.
    public let hasAlpha: Bool
    /// Progressive JPEG, Adam7-interlaced PNG or an interlaced first GIF frame.
    public let isProgressive: Bool
    /// Colour components: 1 gray, 2 gray + alpha, 3 colour (and palette), 4 CMYK or RGBA
    /// (a GIF: 4 when ``hasAlpha``, else 3).
    public let components: Int
    /// Bits per sample as stored; for a GIF, bits per index of its first frame's palette (1…8).
    public let bitDepth: Int
    /// Bytes per pixel of the buffers as large as the whole image that the codec
    /// keeps whatever the thumbnail's size: 4 for a lossless WebP, whose decoder
    /// holds the whole ARGB image; 1 for a lossy WebP's alpha plane, or 5 when
    /// that alpha is compressed losslessly; 0 where decoding runs a few rows at
    /// a time. A progressive JPEG's coefficients depend on the DCT scale and are
    /// not counted here (see ``ThumbnailDecoder/wholeImageBufferBytes(for:)``).
    package let wholeImageBytesPerPixel: Int
    /// Bytes of whole-image buffers that do not come to a whole number per pixel: the YUV
    /// (and alpha) planes an AVIF or HEIC decoder library keeps, 1.5 bytes a pixel for 8-bit
    /// 4:2:0. 0 for the other formats.
    package let wholeImageBytes: Int

    /// Width once EXIF orientation is applied (orientations 5…8 swap the sides).
    public var orientedWidth: Int { (5...8).contains(orientation) ? height : width }
    /// Height once EXIF orientation is applied.
    public var orientedHeight: Int { (5...8).contains(orientation) ? width : height }

    init(format: ImageFormat, width: Int, height: Int, orientation: Int, hasAlpha: Bool, isProgressive: Bool,
         components: Int, bitDepth: Int, wholeImageBytesPerPixel: Int, wholeImageBytes: Int = 0) {
        self.format = format
        self.width = width
        self.height = height
        self.orientation = orientation
        self.hasAlpha = hasAlpha
        self.isProgressive = isProgressive
        self.components = components
        self.bitDepth = bitDepth
        self.wholeImageBytesPerPixel = wholeImageBytesPerPixel
        self.wholeImageBytes = wholeImageBytes
    }

    /// The header of a successful probe or decode, whose format is always a known one.
    init(_ info: ct_image_info) {
        guard let format = ImageFormat(info.format) else { preconditionFailure("a decoded image of unknown format") }
        self.format = format
        width = Int(info.width)
        height = Int(info.height)
        orientation = Int(info.orientation)
        hasAlpha = info.has_alpha != 0
        isProgressive = info.progressive != 0
        components = Int(info.components)
        bitDepth = Int(info.bit_depth)
        wholeImageBytesPerPixel = Int(info.whole_image_bytes_per_pixel)
        wholeImageBytes = Int(clamping: info.whole_image_bytes)
    }
}

extension ThumbnailDecoder {
    /// Reads only the header of an image in memory, applying ``limits`` so a
    /// hostile header fails here with ``ThumbnailDecodingError/tooLarge(_:)``.
    public func readHeader(_ bytes: some Collection<UInt8>) throws -> ImageHeader {
        var limits = limits.cValue
        var info = ct_image_info()
        var error = ct_error()
        let status = bytes.withContiguousBytes { raw in
            ct_probe_memory(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, &limits, &info, &error)
        }
        guard status == CT_OK else { throw error.swiftError() }
        return ImageHeader(info)
    }

    /// Reads only the header of the image in a range of an open file, as
    /// ``readHeader(_:)-(Collection<UInt8>)`` does.
    public func readHeader(_ region: FileRegion) throws -> ImageHeader {
        var limits = limits.cValue
        var info = ct_image_info()
        var error = ct_error()
        let status = ct_probe_descriptor(region.descriptor, UInt64(region.offset), UInt64(region.length), &limits,
                                         &info, &error)
        guard status == CT_OK else { throw error.swiftError() }
        return ImageHeader(info)
    }
}
