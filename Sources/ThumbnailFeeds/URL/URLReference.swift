/// A URL or relative reference as a feed writes it, split into its parts by RFC 3986's grammar
/// (appendix B): `scheme:` `//authority` `path` `?query` `#fragment`, each optional but the path.
///
/// Feeds write URLs loosely: spaces, non-ASCII letters, a `%` that escapes nothing. `escaped` is the same
/// reference with those percent-encoded, as browsers do, so libcurl, which is strict, can parse it.
struct URLReference {
    var scheme: Substring?
    var authority: Substring?
    var path: Substring
    var query: Substring?
    var fragment: Substring?

    /// `nil` when what comes before the first `:` (and any `/`, `?`, `#`) is no valid scheme, as in `1a:b`.
    init?(_ text: String) {
        var rest = Substring(text)
        // Split on bytes: a combining mark after a ":" would make it part of another Character.
        if let colon = rest.utf8.firstIndex(where: Self.isSchemeEnd), rest.utf8[colon] == UInt8(ascii: ":") {
            let candidate = rest.utf8[..<colon]
            guard let first = candidate.first, Self.isLetter(first),
                  candidate.allSatisfy({ Self.isLetter($0) || Self.isDigit($0) || "+-.".utf8.contains($0) })
            else { return nil }
            scheme = rest[..<colon]
            rest = rest[rest.utf8.index(after: colon)...]
        }
        if rest.utf8.starts(with: "//".utf8) {
            rest = rest[rest.utf8.index(rest.startIndex, offsetBy: 2)...]
            let end = rest.utf8.firstIndex(where: { "/?#".utf8.contains($0) }) ?? rest.endIndex
            authority = rest[..<end]
            rest = rest[end...]
        }
        if let hash = rest.utf8.firstIndex(of: UInt8(ascii: "#")) {
            fragment = rest[rest.utf8.index(after: hash)...]
            rest = rest[..<hash]
        }
        if let question = rest.utf8.firstIndex(of: UInt8(ascii: "?")) {
            query = rest[rest.utf8.index(after: question)...]
            rest = rest[..<question]
        }
        path = rest
    }

    /// A relative reference that is only `path`.
    init(path: Substring) {
        self.path = path
    }

    /// The authority's host: without `user@` and `:port` (an IPv6 address keeps its brackets).
    var host: Substring? {
        guard var host = authority else { return nil }
        if let at = host.utf8.lastIndex(of: UInt8(ascii: "@")) {
            host = host[host.utf8.index(after: at)...]
        }
        if let colon = host.utf8.lastIndex(of: UInt8(ascii: ":")), !host.utf8[colon...].contains(UInt8(ascii: "]")) {
            host = host[..<colon]
        }
        return host
    }

    /// Whether the reference is only a query and/or a fragment (`?page=2`, `#top`), which keeps the base's path.
    var isQueryOrFragmentOnly: Bool {
        scheme == nil && authority == nil && path.isEmpty
    }

    /// The reference with characters URLs may not hold percent-encoded in its path, query and fragment
    /// (as UTF-8, upper-case hex, as `URL(string:)` did), and so is every `%` that is not followed by two
    /// hex digits. The authority is left to libcurl, which converts a non-ASCII host name itself.
    var escaped: String {
        var text = ""
        if let scheme { text += scheme + ":" }
        if let authority { text += "//" + authority }
        if scheme == nil, authority == nil, let colon = path.utf8.firstIndex(of: UInt8(ascii: ":")),
           !path.utf8[..<colon].contains(UInt8(ascii: "/")) {
            // `a:b.jpg` as a path (from `file:a:b.jpg`) would read as the scheme `a`.
            text += "./"
        }
        text += PercentEncoding.escaping(path, keeping: PercentEncoding.isPathCharacter)
        if let escapedQuery { text += "?" + escapedQuery }
        if let escapedFragment { text += "#" + escapedFragment }
        return text
    }

    /// The query, escaped as in `escaped`.
    var escapedQuery: String? {
        query.map { PercentEncoding.escaping($0, keeping: PercentEncoding.isQueryCharacter) }
    }

    /// The fragment, escaped as in `escaped` (a second `#` becomes `%23`).
    var escapedFragment: String? {
        fragment.map { PercentEncoding.escaping($0, keeping: PercentEncoding.isQueryCharacter) }
    }

    private static func isSchemeEnd(_ byte: UInt8) -> Bool {
        ":/?#".utf8.contains(byte)
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
