/// How facts travel as object metadata, which S3 carries as `x-amz-meta-*`
/// headers: printable ASCII only.
enum ObjectMetadata {
    /// A URL as a header value: printable ASCII but `%` as is, the rest as `%XX` of its UTF-8.
    static func encodedURL(_ url: String) -> String {
        var encoded = ""
        for byte in url.utf8 {
            if (0x21...0x7E).contains(byte), byte != UInt8(ascii: "%") {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%" + SHA256.hex([byte]).uppercased()
            }
        }
        return encoded
    }

    /// A validator as a header value, or `nil` when it holds anything but printable ASCII.
    static func printable(_ value: String) -> String? {
        value.utf8.allSatisfy { (0x20...0x7E).contains($0) } ? value : nil
    }
}
