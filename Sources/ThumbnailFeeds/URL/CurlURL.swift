internal import CLazyCurl
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An absolute URL held by libcurl's URL API (a `CURLU` handle): parsed, checked (host name, IPv6 address,
/// port) and normalised as libcurl will fetch it, scheme in lower case and `.` and `..` segments removed.
///
/// Only `http`, `https` and `file` URLs are given to it: libcurl 7.88 wants `//` after any other scheme.
///
/// The first one a process makes loads libcurl (`lazy_curl_load`): a feed whose images are all local
/// files never does.
final class CurlURL {
    private let libcurl: UnsafePointer<lazy_curl>
    private let handle: OpaquePointer

    /// `nil` when libcurl refuses `text` (a bad host name or port, an unclosed `[`, a control character).
    /// - Throws: ``FeedError/libraryUnavailable(reason:)`` when libcurl cannot be loaded.
    convenience init?(_ text: String) throws(FeedError) {
        var reason: UnsafePointer<CChar>?
        guard let libcurl = lazy_curl_load(&reason) else {
            throw .libraryUnavailable(reason: reason.map { String(cString: $0) } ?? "libcurl could not be loaded")
        }
        guard let handle = libcurl.pointee.curl_url() else { return nil }
        self.init(libcurl: libcurl, handle: handle)
        guard set(CURLUPART_URL, to: text) else { return nil }
    }

    private init(libcurl: UnsafePointer<lazy_curl>, handle: OpaquePointer) {
        self.libcurl = libcurl
        self.handle = handle
    }

    deinit {
        libcurl.pointee.curl_url_cleanup(handle)
    }

    /// `reference` (escaped: see `URLReference.escaped`) resolved against this URL, or `nil` when libcurl
    /// refuses the result.
    ///
    /// A reference that is only a query or a fragment keeps this URL's path: libcurl 7.88 resolves
    /// `#top` against the directory, as if it were a file name.
    func resolving(_ reference: URLReference) -> CurlURL? {
        guard let copy = libcurl.pointee.curl_url_dup(handle).map({ CurlURL(libcurl: libcurl, handle: $0) }) else {
            return nil
        }
        guard reference.isQueryOrFragmentOnly else {
            return copy.set(CURLUPART_URL, to: reference.escaped) ? copy : nil
        }
        if let query = reference.escapedQuery, !copy.set(CURLUPART_QUERY, to: query) { return nil }
        return copy.set(CURLUPART_FRAGMENT, to: reference.escapedFragment) ? copy : nil
    }

    /// The scheme, in lower case.
    var scheme: String? { part(CURLUPART_SCHEME) }

    /// The path, percent-encoded as it is in the URL.
    var path: String? { part(CURLUPART_PATH) }

    /// The whole URL, its host name in punycode (`xn--…`) when it is not ASCII, so that it can be fetched
    /// whatever the process's locale; `nil` when libcurl cannot convert it.
    var absoluteString: String? {
        guard let host = part(CURLUPART_HOST), !host.utf8.allSatisfy({ $0 < 0x80 }) else {
            return part(CURLUPART_URL)
        }
        // libcurl 7.88 reads the host name in the locale's encoding (libidn2's idn2_lookup_ul), and a
        // process runs in the C locale until it calls setlocale: convert in UTF-8, on this thread only.
        guard let utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", nil) else { return nil }
        defer { freelocale(utf8) }
        let previous = uselocale(utf8)
        defer { uselocale(previous) }
        return part(CURLUPART_URL, flags: UInt32(CURLU_PUNYCODE))
    }

    /// Sets `part`, or removes it for `nil`; `false` when libcurl refuses the value.
    private func set(_ part: CURLUPart, to value: String?) -> Bool {
        libcurl.pointee.curl_url_set(handle, part, value, UInt32(CURLU_NON_SUPPORT_SCHEME)) == CURLUE_OK
    }

    private func part(_ part: CURLUPart, flags: UInt32 = 0) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard libcurl.pointee.curl_url_get(handle, part, &value, flags) == CURLUE_OK, let value else { return nil }
        defer { libcurl.pointee.curl_free(value) }
        return String(cString: value)
    }
}
