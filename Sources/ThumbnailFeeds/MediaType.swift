/// Media types (MIME types) as feeds give them for enclosures and attachments.
enum MediaType {
    /// Whether `type` names an image: `image/jpeg`, `Image/PNG`, `image/webp; q=0.9`.
    static func isImage(_ type: String?) -> Bool {
        guard let type else { return false }
        return type.trimmingPrefix(while: \.isWhitespace).lowercased().hasPrefix("image/")
    }
}
