import CThumbnail

/// Decodes a JPEG, PNG, WebP, GIF, AVIF, HEIC or JPEG XL straight to a thumbnail in one pass.
///
/// JPEGs are decoded at the smallest DCT scale (1/8, 1/4, 1/2 or 1/1) that
/// still covers the target, PNGs and a GIF's first frame one row at a time,
/// all through an area filter, and WebPs through libwebp's scaler straight
/// into the thumbnail, so a full-size bitmap never exists: peak memory is the
/// thumbnail, a few rows and the codec's own state (see
/// ``DecodeReport/peakDecodeBytes``). Lossless WebP is the exception: libwebp
/// holds its whole ARGB image (see `ImageHeader/wholeImageBytesPerPixel`).
///
/// ```swift
/// let thumbnail = try ThumbnailDecoder(size: .fit(256)).decode(contentsOfFile: "photo.jpg")
/// ```
public struct ThumbnailDecoder: Sendable {
    /// The box the thumbnail fits in (or fills). Default: 256 × 256, to fit in.
    public var size: ThumbnailSize
    /// Header limits checked before allocation. Default: ``DecodingLimits/default``.
    public var limits: DecodingLimits
    /// Rotate or flip by the image's EXIF orientation (a JPEG's APP1, a WebP's EXIF chunk). Default: `true`.
    public var appliesOrientation: Bool
    /// The most specialised path a progressive JPEG may take; where it does not
    /// apply (another scale, arithmetic coding, a structure it leaves to libjpeg)
    /// the decode falls back to the one before it. Default: ``JPEGDecodePath/dcOnly``,
    /// which at 1/8 needs 2 bytes per 8×8 block where libjpeg needs 128.
    public var progressivePath: JPEGDecodePath
    /// Convert a thumbnail whose file declares another colour space (an embedded
    /// ICC profile, a PNG gAMA/cHRM far from sRGB's) to sRGB with LittleCMS,
    /// relative colorimetric; a profile that cannot be used is ignored, never a
    /// failure (see ``DecodeReport/colorProfile``). It runs on the finished
    /// thumbnail: a few milliseconds with a matrix profile (Adobe RGB, Display
    /// P3), mostly LittleCMS building the transform; tens with a CMYK or
    /// table-based profile; a profile equal to sRGB is recognised and costs a
    /// fraction of a millisecond. Off, colour information is not even read.
    /// Default: `true`.
    public var convertsToSRGB: Bool
    /// Decode a YCbCr JPEG's luma alone, as a gray thumbnail (for the tests that
    /// compare decode paths plane by plane). Default: `false`.
    package var decodesLumaOnly = false

    /// A decoder with the given options.
    /// - Parameters:
    ///   - size: The box the thumbnail fits in (or fills). Default: 256 × 256, to fit in.
    ///   - limits: Header limits checked before allocation. Default: ``DecodingLimits/default``.
    ///   - appliesOrientation: Whether to apply the EXIF orientation. Default: `true`.
    ///   - progressivePath: The most specialised path a progressive JPEG may take.
    ///     Default: ``JPEGDecodePath/dcOnly``.
    ///   - convertsToSRGB: Whether to convert a thumbnail in another colour space to sRGB. Default: `true`.
    public init(size: ThumbnailSize = .fit(256), limits: DecodingLimits = .default,
                appliesOrientation: Bool = true, progressivePath: JPEGDecodePath = .dcOnly,
                convertsToSRGB: Bool = true) {
        self.size = size
        self.limits = limits
        self.appliesOrientation = appliesOrientation
        self.progressivePath = progressivePath
        self.convertsToSRGB = convertsToSRGB
    }

    /// Decodes an image held in memory: any bytes (`[UInt8]`, `ArraySlice<UInt8>`,
    /// `UnsafeRawBufferPointer`, Foundation's `Data`), read in place when they
    /// are stored contiguously, else copied once.
    /// - Throws: ``ThumbnailDecodingError``, or `CancellationError` when `cancellation` fired.
    public func decode(_ bytes: some Collection<UInt8>, cancellation: DecodeCancellation? = nil) throws -> Thumbnail {
        try bytes.withContiguousBytes { raw in
            try run(cancellation) { options, thumbnail, error in
                ct_decode_memory(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, options,
                                 thumbnail, error)
            }
        }
    }

    /// Decodes a file, streaming it through a small buffer: neither the
    /// compressed file nor a full-size bitmap is ever held whole (but a WebP
    /// file is: libwebp decodes from memory).
    /// - Throws: ``ThumbnailDecodingError``, or `CancellationError` when `cancellation` fired.
    public func decode(contentsOfFile path: String, cancellation: DecodeCancellation? = nil) throws -> Thumbnail {
        try run(cancellation) { options, thumbnail, error in
            ct_decode_file(path, options, thumbnail, error)
        }
    }

    /// Decodes the image in a range of an open file (a cache entry's payload),
    /// streaming it through a small buffer as ``decode(contentsOfFile:cancellation:)`` does.
    /// - Throws: ``ThumbnailDecodingError``, or `CancellationError` when `cancellation` fired.
    public func decode(_ region: FileRegion, cancellation: DecodeCancellation? = nil) throws -> Thumbnail {
        try run(cancellation) { options, thumbnail, error in
            ct_decode_descriptor(region.descriptor, UInt64(region.offset), UInt64(region.length), options, thumbnail, error)
        }
    }

    /// Decodes a file on a Dispatch thread (`BlockingWork`), never on the
    /// cooperative pool, stopping early when the calling task is cancelled.
    public func decode(contentsOfFile path: String) async throws -> Thumbnail {
        try await decode(contentsOfFile: path, cancellingWith: DecodeCancellation())
    }

    /// Decodes a file, raising `cancellation` when the calling task is cancelled.
    func decode(contentsOfFile path: String, cancellingWith cancellation: DecodeCancellation) async throws -> Thumbnail {
        try await withTaskCancellationHandler {
            try await BlockingWork.run { [self] in try decode(contentsOfFile: path, cancellation: cancellation) }
        } onCancel: {
            cancellation.cancel()
        }
    }

    /// Decodes bytes in memory on a Dispatch thread (`BlockingWork`), never
    /// on the cooperative pool, stopping early when the calling task is cancelled.
    public func decode(_ bytes: some Collection<UInt8> & Sendable) async throws -> Thumbnail {
        let cancellation = DecodeCancellation()
        return try await withTaskCancellationHandler {
            try await BlockingWork.run { [self] in try decode(bytes, cancellation: cancellation) }
        } onCancel: {
            cancellation.cancel()
        }
    }

    /// The bytes of a buffer as large as the whole image that decoding an image
    /// with `header` to ``size`` takes: a progressive JPEG's coefficients, which
    /// libjpeg keeps for every 8×8 block of every component (128 bytes each), or
    /// 2 bytes a block on the DC-only path at 1/8, counted as if no component
    /// were subsampled; a WebP's ``ImageHeader/wholeImageBytesPerPixel`` for
    /// every pixel of its canvas (4 for lossless); an AVIF's or HEIC's YUV planes
    /// (``ImageHeader/wholeImageBytes``). Upper bounds. 0 for everything else,
    /// which decodes a few rows at a time.
    package func wholeImageBufferBytes(for header: ImageHeader) -> Int {
        guard header.format == .jpeg else {
            return header.width * header.height * header.wholeImageBytesPerPixel + header.wholeImageBytes
        }
        guard header.isProgressive else { return 0 }
        let blocks = (header.width + 7) / 8 * ((header.height + 7) / 8) * header.components
        return blocks * (progressivePath == .dcOnly && scaleNumerator(for: header) == 1 ? 2 : 128)
    }

    /// The DCT scale, as M in M/8, a JPEG with `header` is decoded at for
    /// ``size``, as the C decoder picks it: the smallest whose output still covers
    /// the thumbnail and keeps at least 8 px a side (or the whole side, when it is
    /// shorter), so the encoder's block padding never outweighs real pixels.
    /// libjpeg's output is the source size × M/8, rounded up.
    func scaleNumerator(for header: ImageHeader) -> Int {
        let transposed = appliesOrientation && (5...8).contains(header.orientation)
        let fitted = transposed ? size.decodedSize(width: header.height, height: header.width)
                                : size.decodedSize(width: header.width, height: header.height)
        let (width, height) = transposed ? (fitted.height, fitted.width) : fitted
        func covers(_ side: Int, _ thumbnailSide: Int, at numerator: Int) -> Bool {
            let scaled = (side * numerator + 7) / 8
            return scaled >= thumbnailSide && scaled >= min(side, 8)
        }
        return [1, 2, 4].first { covers(header.width, width, at: $0) && covers(header.height, height, at: $0) } ?? 8
    }

    private func run(
        _ cancellation: DecodeCancellation?,
        _ body: (UnsafePointer<ct_decode_options>, UnsafeMutablePointer<ct_thumbnail>, UnsafeMutablePointer<ct_error>) -> ct_status
    ) throws -> Thumbnail {
        var options = ct_default_decode_options()
        options.max_width = UInt32(clamping: size.maxWidth ?? 0)
        options.max_height = UInt32(clamping: size.maxHeight ?? 0)
        options.fill = size.mode == .fill ? 1 : 0
        options.limits = limits.cValue
        options.apply_orientation = appliesOrientation ? 1 : 0
        options.progressive_scan_skipping = progressivePath == .libjpeg ? 0 : 1
        options.progressive_dc_decoding = progressivePath == .dcOnly ? 1 : 0
        options.jpeg_luma_only = decodesLumaOnly ? 1 : 0
        options.convert_to_srgb = convertsToSRGB ? 1 : 0
        var thumbnail = ct_thumbnail()
        var error = ct_error()
        let status = withExtendedLifetime(cancellation) {
            options.cancel = cancellation?.token
            return body(&options, &thumbnail, &error)
        }
        guard status == CT_OK, let pixels = thumbnail.pixels else {
            throw error.swiftError()
        }
        let count = Int(thumbnail.width) * Int(thumbnail.height) * 4
        return Thumbnail(
            width: Int(thumbnail.width), height: Int(thumbnail.height),
            pixels: PixelBuffer(takingOwnershipOf: pixels, count: count),
            source: ImageHeader(thumbnail.source), report: DecodeReport(thumbnail))
    }
}
