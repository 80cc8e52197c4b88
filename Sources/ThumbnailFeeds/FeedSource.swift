/// Where a feed came from: the base its relative image URLs resolve against, and which images it may point at.
///
/// A feed from the web may only name web images: were it allowed `file:` URLs, anyone publishing a feed
/// could make the reader open local files. A local feed was put there by the user, so it may name both.
///
/// Web URLs are parsed, checked and resolved by libcurl (`CurlURL`), the library that fetches them, once
/// the loose spellings feeds use are percent-encoded (`URLReference`). File URLs are resolved here, on
/// their decoded paths, since their spelling is this type's own (no query or fragment, every escape
/// decoded and encoded again); libcurl 7.88 would also spell the root `file://(nil)` and resolve nothing
/// against it.
struct FeedSource {
    /// What became of one image URL of the feed.
    enum Resolution {
        /// An absolute `http(s)://` or `file:///` URL, percent-encoded.
        case accepted(String)
        case refused(RefusedImage)
    }

    private enum Base {
        /// A feed from the web, at this URL.
        case web(CurlURL)
        /// A local feed, at this absolute path (bytes, not percent-encoded) without `.` or `..` segments.
        case local(path: [UInt8])

        /// The scheme a relative reference inherits, in lower case.
        var scheme: String {
            switch self {
            case .web(let url): url.scheme ?? "https"
            case .local: "file"
            }
        }
    }

    private let base: Base

    /// - Parameters:
    ///   - source: An `http(s)://` URL, a `file:` URL, or a path, absolute or relative to `currentDirectory`.
    ///   - currentDirectory: The absolute path relative paths start from.
    init(_ source: String, currentDirectory: String) throws(FeedError) {
        let lowercased = source.lowercased()
        let path: [UInt8]
        if lowercased.hasPrefix("http://") || lowercased.hasPrefix("https://") {
            guard let reference = URLReference(source), Self.namesAHost(reference),
                  let url = try CurlURL(reference.escaped) else {
                throw .invalidSource(source: source, reason: "not a valid http(s) URL")
            }
            base = .web(url)
            return
        } else if lowercased.hasPrefix("file:") {
            guard let reference = URLReference(source), Self.namesThisMachine(reference) else {
                throw .invalidSource(source: source, reason: "not a valid file URL on this machine")
            }
            path = PercentEncoding.decoding(reference.path)
        } else {
            guard !source.isEmpty else { throw .invalidSource(source: source, reason: "the path is empty") }
            path = Array(source.utf8)
        }
        let absolute = path.first == UInt8(ascii: "/") ? path : Array(currentDirectory.utf8) + [UInt8(ascii: "/")] + path
        base = .local(path: Self.removingDotSegments(absolute))
    }

    /// `reference` trimmed, resolved against the feed's URL and checked against the source policy;
    /// `nil` when it is blank.
    /// - Throws: ``FeedError/libraryUnavailable(reason:)`` when a web URL needs libcurl, which cannot be loaded.
    func resolve(_ reference: String) throws(FeedError) -> Resolution? {
        let trimmed = String(reference.trimmingWhitespace())
        guard !trimmed.isEmpty else { return nil }
        // Readers keep a longer one cut, ending in “…”: no longer the URL the feed names.
        guard trimmed.utf8.count <= FeedLimits.maximumTextBytes else {
            return refuse(trimmed, "a URL longer than \(FeedLimits.maximumTextBytes >> 10) KiB, the most a feed's may be")
        }
        guard let parsed = URLReference(trimmed) else { return refuse(trimmed, "not a valid URL") }
        let scheme = parsed.scheme?.lowercased() ?? base.scheme
        switch (scheme, base) {
        case ("http", _), ("https", _):
            // libcurl would take `https:///x.jpg` as the host `x.jpg`.
            guard parsed.scheme == nil && parsed.authority == nil || Self.namesAHost(parsed) else {
                return refuse(trimmed, "a web URL must name a host")
            }
            let url = switch base {
            case .web(let feedURL): feedURL.resolving(parsed)
            case .local: try CurlURL(parsed.escaped)
            }
            guard let url = url?.absoluteString else { return refuse(trimmed, "not a valid URL") }
            return .accepted(url)
        case ("file", .web):
            return refuse(trimmed, "a web feed may not point at local files")
        case ("file", .local(let feedPath)):
            guard Self.namesThisMachine(parsed) else {
                return refuse(trimmed, "a file URL may only name this machine (no host, or localhost)")
            }
            return .accepted(Self.fileURL(path: Self.path(of: parsed, relativeTo: feedPath)))
        case (_, .web):
            return refuse(trimmed, "a web feed may only point at http(s) images, not \(scheme): URLs")
        case (_, .local):
            return refuse(trimmed, "a local feed may only point at http(s) images and local files, not \(scheme): URLs")
        }
    }

    private func refuse(_ url: String, _ reason: String) -> Resolution {
        .refused(RefusedImage(url: url, reason: reason))
    }

    /// The path of the file `reference` names, from a feed at `feedPath`: only the path counts, a file has
    /// no query or fragment. A relative path (even in `file:a.jpg`) starts from the feed's directory.
    private static func path(of reference: URLReference, relativeTo feedPath: [UInt8]) -> [UInt8] {
        let path = PercentEncoding.decoding(reference.path)
        if path.first == UInt8(ascii: "/") { return path }
        if path.isEmpty { return feedPath }
        let directory = feedPath[...(feedPath.lastIndex(of: UInt8(ascii: "/")) ?? 0)]
        return directory + path
    }

    /// `file:///…` for an absolute path, with `.` and `..` removed: `file:/x` and `file://localhost/x`
    /// name the same file as `file:///x`, and one spelling keeps equal images equal. Every byte but those
    /// a path may hold is percent-encoded, `%` included: the path is a file's name, not a URL.
    private static func fileURL(path: [UInt8]) -> String {
        "file://" + PercentEncoding.escaping(removingDotSegments(path), keeping: PercentEncoding.isPathCharacter, keepingEscapes: false)
    }

    /// An absolute path without `.` and `..` segments (RFC 3986 section 5.2.4); `..` at the root stays there.
    private static func removingDotSegments(_ path: [UInt8]) -> [UInt8] {
        let segments = path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
        var kept: [ArraySlice<UInt8>] = []
        for (index, segment) in zip(segments.indices, segments) {
            let isDot = segment.elementsEqual(".".utf8)
            let isDotDot = segment.elementsEqual("..".utf8)
            if isDotDot { _ = kept.popLast() }
            if !isDot && !isDotDot {
                kept.append(segment)
            } else if index == segments.indices.last {
                // `a/.` and `a/..` name directories: the path keeps its trailing slash.
                kept.append([])
            }
        }
        return [UInt8(ascii: "/")] + Array(kept.joined(separator: [UInt8(ascii: "/")]))
    }

    private static func namesAHost(_ reference: URLReference) -> Bool {
        reference.host?.isEmpty == false
    }

    private static func namesThisMachine(_ reference: URLReference) -> Bool {
        reference.host.map { ["", "localhost"].contains($0.lowercased()) } ?? true
    }
}
