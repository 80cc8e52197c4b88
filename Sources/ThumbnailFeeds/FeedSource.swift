import Foundation

/// Where a feed came from: the base its relative image URLs resolve against, and which images it may point at.
///
/// A feed from the web may only name web images: were it allowed `file:` URLs, anyone publishing a feed
/// could make the reader open local files. A local feed was put there by the user, so it may name both.
struct FeedSource {
    enum Kind {
        case web
        case local
    }

    /// What became of one image URL of the feed.
    enum Resolution {
        /// An absolute `http(s)://` or `file:///` URL, percent-encoded.
        case accepted(String)
        case refused(RefusedImage)
    }

    let kind: Kind
    /// The feed's own absolute URL; a path source becomes a `file:///` URL.
    let baseURL: URL

    /// - Parameters:
    ///   - source: An `http(s)://` URL, a `file:` URL, or a path, absolute or relative to `currentDirectory`.
    ///   - currentDirectory: The absolute path relative paths start from.
    init(_ source: String, currentDirectory: String) throws(FeedError) {
        let lowercased = source.lowercased()
        if lowercased.hasPrefix("http://") || lowercased.hasPrefix("https://") {
            guard let url = URL(string: source), url.host?.isEmpty == false else {
                throw .invalidSource(source: source, reason: "not a valid http(s) URL")
            }
            kind = .web
            baseURL = url
        } else if lowercased.hasPrefix("file:") {
            guard let url = URL(string: source), Self.namesThisMachine(url) else {
                throw .invalidSource(source: source, reason: "not a valid file URL on this machine")
            }
            kind = .local
            baseURL = Self.fileURL(path: url.path(percentEncoded: false))
        } else {
            guard !source.isEmpty else { throw .invalidSource(source: source, reason: "the path is empty") }
            kind = .local
            let path = source.hasPrefix("/") ? source : currentDirectory + "/" + source
            baseURL = Self.fileURL(path: path)
        }
    }

    /// `reference` trimmed, resolved against the feed's URL and checked against the source policy;
    /// `nil` when it is blank.
    func resolve(_ reference: String) -> Resolution? {
        let trimmed = reference.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        guard let url = URL(string: trimmed, relativeTo: baseURL)?.absoluteURL, let scheme = url.scheme?.lowercased() else {
            return refuse(trimmed, "not a valid URL")
        }
        switch (scheme, kind) {
        case ("http", _), ("https", _):
            guard url.host?.isEmpty == false else { return refuse(trimmed, "a web URL must name a host") }
            return .accepted(url.absoluteString)
        case ("file", .web):
            return refuse(trimmed, "a web feed may not point at local files")
        case ("file", .local):
            guard Self.namesThisMachine(url) else {
                return refuse(trimmed, "a file URL may only name this machine (no host, or localhost)")
            }
            return .accepted(Self.fileURL(path: url.path(percentEncoded: false)).absoluteString)
        case (_, .web):
            return refuse(trimmed, "a web feed may only point at http(s) images, not \(scheme): URLs")
        case (_, .local):
            return refuse(trimmed, "a local feed may only point at http(s) images and local files, not \(scheme): URLs")
        }
    }

    private func refuse(_ url: String, _ reason: String) -> Resolution {
        .refused(RefusedImage(url: url, reason: reason))
    }

    /// `file:///…` for an absolute path, with `.` and `..` removed: `file:/x` and `file://localhost/x`
    /// name the same file as `file:///x`, and one spelling keeps equal images equal.
    private static func fileURL(path: String) -> URL {
        URL(filePath: path, directoryHint: .inferFromPath).standardized
    }

    private static func namesThisMachine(_ url: URL) -> Bool {
        url.scheme?.lowercased() == "file" && [nil, "", "localhost"].contains(url.host?.lowercased())
    }
}
