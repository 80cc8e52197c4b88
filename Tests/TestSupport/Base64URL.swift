import Foundation

/// base64url as thumbnail URLs carry their source: `-` and `_` for `+` and `/`, no padding.
public enum Base64URL {
    /// The UTF-8 text `encoded` decodes to; `nil` when it is not base64url of UTF-8.
    public static func decodedText(_ encoded: some StringProtocol) -> String? {
        var base64 = encoded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).flatMap { String(data: $0, encoding: .utf8) }
    }
}
