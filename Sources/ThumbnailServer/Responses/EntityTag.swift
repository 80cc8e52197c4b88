import ThumbnailKit

/// A response's `ETag`: the SHA-256 of its bytes, quoted, so that equal bytes
/// have equal tags on every replica and after every restart.
struct EntityTag: Equatable, Sendable {
    /// `"…hex…"`, quotes included, as the header carries it.
    let value: String

    init(of bytes: some Collection<UInt8>) {
        value = "\"" + SHA256.hex(SHA256.digest(bytes)) + "\""
    }

    /// Whether an `If-None-Match` header names this tag: `*`, or the tag in its
    /// comma-separated list, weak (`W/`) or not (RFC 9110 compares weakly here).
    func isMatched(byIfNoneMatch header: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingSpacesAndTabs
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            return tag == value
        }
    }
}
