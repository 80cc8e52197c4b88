import CThumbnail

/// Encodes thumbnails for the disk tier, for files and for HTTP: JPEG for
/// opaque thumbnails, PNG for ones with alpha, WebP when asked. GIF is read,
/// never written. Equal pixels always give equal bytes.
public struct ThumbnailEncoder: Sendable {
    /// JPEG quality 1…100. Default: 85.
    public var jpegQuality: Int
    /// Lossy WebP quality 1…100. Default: 80.
    public var webpQuality: Int

    /// An encoder with the given qualities (PNG is lossless and takes none).
    /// - Parameters:
    ///   - jpegQuality: JPEG quality 1…100. Default: 85.
    ///   - webpQuality: Lossy WebP quality 1…100. Default: 80.
    public init(jpegQuality: Int = 85, webpQuality: Int = 80) {
        self.jpegQuality = jpegQuality
        self.webpQuality = webpQuality
    }

    /// The formats ``encode(_:as:)`` writes: JPEG, PNG and WebP. GIF is only read.
    public static let writableFormats: [ImageFormat] = [.jpeg, .png, .webp]

    /// The format ``encode(_:)`` picks: PNG when the thumbnail can be transparent, else JPEG.
    public func preferredFormat(for thumbnail: Thumbnail) -> ImageFormat {
        thumbnail.hasAlpha ? .png : .jpeg
    }

    /// Encodes in the preferred format for the thumbnail.
    public func encode(_ thumbnail: Thumbnail) throws -> [UInt8] {
        try encode(thumbnail, as: preferredFormat(for: thumbnail))
    }

    /// Encodes as `format`. JPEG drops alpha.
    /// - Throws: ``ThumbnailEncodingError``, also for a format not in ``writableFormats``.
    public func encode(_ thumbnail: Thumbnail, as format: ImageFormat) throws -> [UInt8] {
        try thumbnail.pixels.withUnsafeBytes { raw in
            try encode(rgba: raw, width: thumbnail.width, height: thumbnail.height, as: format)
        }
    }

    /// Encodes `width × height` RGBA8 pixels (straight alpha, no row padding) as `format`.
    /// - Throws: ``ThumbnailEncodingError`` when the sizes disagree, the codec fails or
    ///   `format` is not in ``writableFormats``.
    public func encode(rgba: some Collection<UInt8>, width: Int, height: Int,
                       as format: ImageFormat) throws -> [UInt8] {
        var output = ct_buffer()
        var error = ct_error()
        let status = try rgba.withContiguousBytes { raw -> ct_status in
            guard width > 0, height > 0, raw.count == width * height * 4,
                  let pixels = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            else { return CT_INVALID_ARGUMENT }
            switch format {
            case .jpeg:
                return ct_encode_jpeg(pixels, UInt32(width), UInt32(height), Int32(jpegQuality), &output, &error)
            case .png:
                return ct_encode_png(pixels, UInt32(width), UInt32(height), &output, &error)
            case .webp:
                return ct_encode_webp(pixels, UInt32(width), UInt32(height), Int32(webpQuality), &output, &error)
            case .gif, .avif, .heic, .jxl:
                throw ThumbnailEncodingError(message: "thumbnails are written as JPEG, PNG or WebP, not \(format.rawValue)")
            }
        }
        defer { ct_buffer_free(&output) }
        guard status == CT_OK, let data = output.data else {
            let reason = status == CT_INVALID_ARGUMENT && error.status != CT_INVALID_ARGUMENT
                ? "\(rgba.count) bytes are not \(width)x\(height) RGBA8 pixels" : error.text
            throw ThumbnailEncodingError(message: reason)
        }
        return Array(UnsafeBufferPointer(start: data, count: output.size))
    }
}

/// An encoder failure, with the codec's reason.
public struct ThumbnailEncodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The codec's reason, or which pixels did not match the size given.
    public let message: String
    public var description: String { "encoding failed: \(message)" }
}
