/// The source hosts a server may fetch from (`--allow-source`): a source whose
/// host matches none of the patterns is refused before anything is fetched.
///
/// A pattern is a host name, matched without regard to case and to any port:
/// - `images.example.org`: that host only;
/// - `*.example.com`: any host below example.com (`a.example.com`,
///   `a.b.example.com`), not example.com itself;
/// - `*`: any host.
///
/// No scheme, port, path or other wildcard is accepted in a pattern. Where the
/// list is consulted, a source that carries user information (`user@host`) or a
/// host with anything but letters, digits, `-` and `.` (an IP literal, a
/// percent-escape, a backslash) is refused unless the list has `*`: such a URL
/// is where two URL parsers disagree about the host, and the transport's parser is not this one.
public struct SourceAllowList: Sendable, Hashable {
    /// The patterns, lower-cased, as given.
    public let patterns: [String]

    /// A pattern that is not a host name, `*.` and a host name, or `*`.
    public struct InvalidPattern: Error, Sendable, Hashable, CustomStringConvertible {
        /// The pattern refused, as given.
        public let pattern: String
        public var description: String {
            "allowed source \"\(pattern)\" is not a host (images.example.org), *.domain (*.example.com) or *"
        }
    }

    /// - Throws: ``InvalidPattern`` for the first pattern that is none of the accepted forms.
    public init(patterns: [String]) throws(InvalidPattern) {
        self.patterns = try patterns.map { pattern throws(InvalidPattern) in
            let lowered = pattern.lowercased()
            let host = lowered.hasPrefix("*.") ? String(lowered.dropFirst(2)) : lowered
            guard lowered == "*" || Self.isHostName(host) else { throw InvalidPattern(pattern: pattern) }
            return lowered
        }
    }

    /// Whether the host of `source`, an http or https URL, matches a pattern.
    public func allows(_ source: String) -> Bool {
        if patterns.contains("*") { return true }
        guard let host = Self.host(of: source) else { return false }
        return patterns.contains { pattern in
            pattern.hasPrefix("*.") ? host.hasSuffix(pattern.dropFirst()) : host == pattern
        }
    }

    /// The lower-cased host of a `scheme://authority/…` URL, without a final dot;
    /// `nil` when the authority has user information or the host is not a plain host name.
    static func host(of url: String) -> String? {
        guard let schemeEnd = url.utf8.firstRange(of: "://".utf8) else { return nil }
        let authority = url[schemeEnd.upperBound...].prefix { !"/?#".contains($0) }
        var host = authority.lowercased()
        if let colon = host.lastIndex(of: ":"), host[host.index(after: colon)...].allSatisfy(\.isASCIINumber) {
            host = String(host[..<colon])
        }
        if host.hasSuffix(".") { host.removeLast() }
        return isHostName(host) ? host : nil
    }

    /// Labels of ASCII letters, digits and `-`, separated by single dots.
    private static func isHostName(_ text: String) -> Bool {
        !text.isEmpty && text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "-")
            }
        }
    }
}

extension Character {
    /// 0 to 9, and nothing else that Unicode calls a number.
    fileprivate var isASCIINumber: Bool { isASCII && isNumber }
}
