import ThumbnailKit

/// The format a response is encoded in: the URL's extension when it has one;
/// else WebP when the request's `Accept` names `image/webp` (with a nonzero
/// `q`); else as the thumbnail warrants (JPEG, or PNG when it can be
/// transparent). Only an explicit `image/webp` counts: `*/*` and `image/*`
/// are sent by clients that cannot all decode WebP.
struct FormatChoice: Equatable {
    /// The format, or `nil` for the one the thumbnail warrants.
    let format: ImageFormat?
    /// Whether another `Accept` could have chosen another format: the response then says `Vary: Accept`.
    let variesWithAccept: Bool

    init(asked: OutputFormat?, accept: String?) {
        if let asked {
            format = asked.imageFormat
            variesWithAccept = false
        } else {
            format = accept.map(Self.acceptsWebP) == true ? .webp : nil
            variesWithAccept = true
        }
    }

    /// Whether an `Accept` header lists `image/webp` with a quality above zero.
    static func acceptsWebP(_ accept: String) -> Bool {
        accept.split(separator: ",").contains { range in
            let parts = range.split(separator: ";").map(\.trimmingSpacesAndTabs)
            guard parts.first?.lowercased() == "image/webp" else { return false }
            let quality = parts.dropFirst().first { $0.lowercased().hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) }
            return (quality ?? 1) > 0
        }
    }
}
