/// The keys every stored copy lives under, on disk and in the object store:
/// the only place they are built, so that the tiers, the warmer and every
/// other process agree on where a copy is.
///
/// | copy | disk tier (``DiskCache``, hashed again there) | object store |
/// |---|---|---|
/// | original | its URL | `originals/<xx>/<sha256(URL)>` |
/// | thumbnail | `<URL>#<size>#r<rendering>[#unoriented]` | `thumbnails/<xx>/<sha256(disk key)>` |
///
/// `<xx>` is the first two hex digits of the hash that follows it.
struct CacheKeys: Sendable {
    /// What the stored thumbnails were drawn by, raised whenever the same original comes to make a
    /// different picture, so that thumbnails an earlier version stored are made again from their
    /// originals instead of being served. 2: colour profiles converted to sRGB, and JPEGs damaged
    /// at their source drawn. 3: each size decoded at its own size, never scaled down from another
    /// size's decode, so its bytes no longer depend on the sizes asked for beside it. Earlier
    /// thumbnails stay on disk until the byte limit evicts them.
    static let renderingVersion = 3

    /// Whether thumbnails are made with EXIF orientation applied: a thumbnail
    /// made without it is a different picture, so it is part of the key.
    let appliesOrientation: Bool

    /// The disk key of the original at `url`. The disk tier follows an image's
    /// copies by it too (``DiskCache/imageEvictions``).
    func originalOnDisk(_ url: String) -> String { url }

    /// The disk key of a thumbnail.
    func thumbnailOnDisk(_ key: ThumbnailKey) -> String {
        "\(key.url)#\(key.size)#r\(Self.renderingVersion)" + (appliesOrientation ? "" : "#unoriented")
    }

    /// The object key of the original at `url`.
    func originalInStore(_ url: String) -> String {
        Self.sharded("originals", SHA256.hexDigest(of: url))
    }

    /// The object key of a thumbnail.
    func thumbnailInStore(_ key: ThumbnailKey) -> String {
        Self.sharded("thumbnails", SHA256.hexDigest(of: thumbnailOnDisk(key)))
    }

    private static func sharded(_ namespace: String, _ hex: String) -> String {
        "\(namespace)/\(hex.prefix(2))/\(hex)"
    }
}
