/// What is known of an encoded thumbnail read from a store as it was stored,
/// without decoding it: what a server needs to send those bytes as they are.
package struct EncodedThumbnailFacts: Sendable {
    /// Where a stored encoded thumbnail is found.
    package enum Tier: String, Sendable {
        case disk, objectStore
    }

    package let tier: Tier
    /// The format of the bytes, read from their signature.
    package let format: ImageFormat
    /// The facts of the original it was made of.
    package let source: ImageHeader
    /// The origin's `Last-Modified` for that original, when it sent one.
    package let originLastModified: String?
}
