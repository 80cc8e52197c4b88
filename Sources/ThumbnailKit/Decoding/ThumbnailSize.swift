import CThumbnail

/// The box a thumbnail must fit in, or fill. Fitting, the aspect ratio is
/// kept, each side is at least one pixel, and an image smaller than the box
/// keeps its size. Filling (``fill(width:height:)``), the thumbnail is exactly
/// the box: the picture scaled to cover it and its centre cut out.
public struct ThumbnailSize: Sendable, Hashable, CustomStringConvertible {
    /// How a picture is made to match the box.
    public enum Mode: Sendable, Hashable {
        /// Scaled to fit inside the box, the aspect ratio kept.
        case fit
        /// Scaled to cover the box, then its centre cut out at exactly the box's
        /// size (after EXIF orientation). Of an odd excess, the extra pixel is cut
        /// on the right (bottom). A source smaller than the box is never
        /// upscaled: it gives its largest centred crop with the box's aspect
        /// ratio. Needs both sides bounded: with `nil` in either it fits.
        case fill
    }

    /// Maximum width in pixels (a fill's width); `nil` for unbounded.
    public var maxWidth: Int?
    /// Maximum height in pixels (a fill's height); `nil` for unbounded.
    public var maxHeight: Int?
    /// Fit inside the box or fill it. Default: ``Mode/fit``.
    public var mode: Mode = .fit

    /// Fits inside `maxWidth` × `maxHeight`.
    public init(maxWidth: Int?, maxHeight: Int?) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
    }

    /// Fits inside or fills `maxWidth` × `maxHeight`.
    public init(maxWidth: Int?, maxHeight: Int?, mode: Mode) {
        self.init(maxWidth: maxWidth, maxHeight: maxHeight)
        self.mode = mode
    }

    /// Fits inside a `side` × `side` square.
    public static func fit(_ side: Int) -> ThumbnailSize { ThumbnailSize(maxWidth: side, maxHeight: side) }

    /// Fits inside `width` × `height`.
    public static func fit(width: Int, height: Int) -> ThumbnailSize {
        ThumbnailSize(maxWidth: width, maxHeight: height)
    }

    /// Fills a `side` × `side` square: the centre of the picture scaled to cover it.
    public static func fill(_ side: Int) -> ThumbnailSize { fill(width: side, height: side) }

    /// Fills `width` × `height` exactly: the picture scaled to cover the box
    /// (decoded at the smallest scale that does) and its centre cut out.
    public static func fill(width: Int, height: Int) -> ThumbnailSize {
        ThumbnailSize(maxWidth: width, maxHeight: height, mode: .fill)
    }

    /// No box: decode at the source size (what a naive app does).
    public static let original = ThumbnailSize(maxWidth: nil, maxHeight: nil)

    /// The size an image of `width` × `height` takes in this box: exactly the
    /// size the decoder gives a thumbnail of it (for a fill, the box, or a
    /// smaller source's largest crop with the box's aspect ratio).
    public func fitting(width: Int, height: Int) -> (width: Int, height: Int) {
        measure(width: width, height: height, with: isFill ? ct_fill_size : ct_fit_size)
    }

    /// The size the decoder scales an image of `width` × `height` to before
    /// any crop: for a fill the size that covers the box, else ``fitting(width:height:)``.
    func decodedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        measure(width: width, height: height, with: isFill ? ct_cover_size : ct_fit_size)
    }

    /// The box a stored thumbnail of this size is decoded in when read back: a
    /// fit of the same box. The file is already the finished thumbnail, no
    /// larger than the box, so fitting leaves it as it is, where a fill could
    /// crop a smaller source's crop again by a rounding pixel.
    package var storedFile: ThumbnailSize { ThumbnailSize(maxWidth: maxWidth, maxHeight: maxHeight) }

    /// A fill that the decoder does as one: both sides bounded.
    var isFill: Bool { mode == .fill && maxWidth != nil && maxHeight != nil }

    private func measure(
        width: Int, height: Int,
        with geometry: (UInt32, UInt32, UInt32, UInt32, UnsafeMutablePointer<UInt32>?, UnsafeMutablePointer<UInt32>?) -> Void
    ) -> (width: Int, height: Int) {
        var measuredWidth: UInt32 = 0
        var measuredHeight: UInt32 = 0
        geometry(UInt32(clamping: width), UInt32(clamping: height), UInt32(clamping: maxWidth ?? 0),
                 UInt32(clamping: maxHeight ?? 0), &measuredWidth, &measuredHeight)
        return (Int(measuredWidth), Int(measuredHeight))
    }

    /// The smallest box that holds every box in `sizes`: one decode at this
    /// size can be scaled down to each of them. With a fill among them it is a
    /// fill of the larger bounds, whose cover holds every fill's cover and every
    /// fit (a cover is never smaller than the fit of the same box).
    public static func union(of sizes: some Sequence<ThumbnailSize>) -> ThumbnailSize {
        var union: ThumbnailSize?
        for size in sizes {
            guard let current = union else {
                union = size
                continue
            }
            union = ThumbnailSize(maxWidth: larger(current.maxWidth, size.maxWidth),
                                  maxHeight: larger(current.maxHeight, size.maxHeight),
                                  mode: current.mode == .fill || size.mode == .fill ? .fill : .fit)
        }
        return union ?? .original
    }

    /// The larger bound, `nil` (unbounded) being the largest.
    private static func larger(_ first: Int?, _ second: Int?) -> Int? {
        guard let first, let second else { return nil }
        return max(first, second)
    }

    /// Parses `256` (a square) or `320x200` (a box) to fit in, and `fill:256` or
    /// `fill:320x200` to fill. Returns `nil` for anything else.
    package init?(parsing text: String) {
        let lowercased = text.lowercased()
        let fillPrefix = "fill:"
        let filling = lowercased.hasPrefix(fillPrefix)
        let parts = lowercased.dropFirst(filling ? fillPrefix.count : 0)
            .split(separator: "x", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { Int($0) }
        guard numbers.count == parts.count, numbers.allSatisfy({ $0 > 0 && $0 <= 65_535 }) else { return nil }
        switch numbers.count {
        case 1: self = .fit(numbers[0])
        case 2: self = .fit(width: numbers[0], height: numbers[1])
        default: return nil
        }
        if filling { mode = .fill }
    }

    /// `256`, `320x200` or `original` for a fit: the text every cache key and
    /// object's metadata holds, unchanged since before fills. A fill is
    /// `fill-256` or `fill-320x200`, which no fit can be (ASCII, safe in keys
    /// and S3 metadata).
    public var description: String {
        let box = switch (maxWidth, maxHeight) {
        case (nil, nil): "original"
        case let (width?, height?) where width == height: "\(width)"
        default: "\(maxWidth.map(String.init) ?? "any")x\(maxHeight.map(String.init) ?? "any")"
        }
        return mode == .fill ? "fill-\(box)" : box
    }
}
