/// `256` is the box most lists want, so it can be written as a number:
/// `size: 256` fits inside 256 × 256, as ``ThumbnailSize/fit(_:)`` does.
extension ThumbnailSize: ExpressibleByIntegerLiteral {
    public init(integerLiteral side: Int) {
        self = .fit(side)
    }
}
