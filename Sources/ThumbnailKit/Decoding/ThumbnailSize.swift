import CThumbnail

/// The box a thumbnail must fit in. The aspect ratio is kept, each side is at
/// least one pixel, and an image smaller than the box keeps its size.
public struct ThumbnailSize: Sendable, Hashable, CustomStringConvertible {
    /// Maximum width in pixels; `nil` for unbounded.
    public var maxWidth: Int?
    /// Maximum height in pixels; `nil` for unbounded.
    public var maxHeight: Int?

    /// Fits inside `maxWidth` × `maxHeight`.
    public init(maxWidth: Int?, maxHeight: Int?) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
    }

    /// Fits inside a `side` × `side` square.
    public static func fit(_ side: Int) -> ThumbnailSize { ThumbnailSize(maxWidth: side, maxHeight: side) }

    /// Fits inside `width` × `height`.
    public static func fit(width: Int, height: Int) -> ThumbnailSize {
        ThumbnailSize(maxWidth: width, maxHeight: height)
    }

    /// No box: decode at the source size (what a naive app does).
    public static let original = ThumbnailSize(maxWidth: nil, maxHeight: nil)

    /// The size an image of `width` × `height` takes in this box: exactly the
    /// size the decoder gives a thumbnail of it.
    public func fitting(width: Int, height: Int) -> (width: Int, height: Int) {
        var fittedWidth: UInt32 = 0
        var fittedHeight: UInt32 = 0
        ct_fit_size(UInt32(clamping: width), UInt32(clamping: height), UInt32(clamping: maxWidth ?? 0),
                    UInt32(clamping: maxHeight ?? 0), &fittedWidth, &fittedHeight)
        return (Int(fittedWidth), Int(fittedHeight))
    }

    /// The smallest box that holds every box in `sizes`: one decode at this
    /// size can be scaled down to each of them.
    public static func union(of sizes: some Sequence<ThumbnailSize>) -> ThumbnailSize {
        var union: ThumbnailSize?
        for size in sizes {
            guard let current = union else {
                union = size
                continue
            }
            union = ThumbnailSize(maxWidth: larger(current.maxWidth, size.maxWidth),
                                  maxHeight: larger(current.maxHeight, size.maxHeight))
        }
        return union ?? .original
    }

    /// The larger bound, `nil` (unbounded) being the largest.
    private static func larger(_ first: Int?, _ second: Int?) -> Int? {
        guard let first, let second else { return nil }
        return max(first, second)
    }

    /// Parses `256` (a square) or `320x200` (a box). Returns `nil` for anything else.
    package init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { Int($0) }
        guard numbers.count == parts.count, numbers.allSatisfy({ $0 > 0 && $0 <= 65_535 }) else { return nil }
        switch numbers.count {
        case 1: self = .fit(numbers[0])
        case 2: self = .fit(width: numbers[0], height: numbers[1])
        default: return nil
        }
    }

    public var description: String {
        switch (maxWidth, maxHeight) {
        case (nil, nil): "original"
        case let (width?, height?) where width == height: "\(width)"
        default: "\(maxWidth.map(String.init) ?? "any")x\(maxHeight.map(String.init) ?? "any")"
        }
    }
}
