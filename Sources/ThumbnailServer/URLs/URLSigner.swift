import ExtrasBase64
import ThumbnailKit

/// Signs and checks the paths of thumbnail URLs as imgproxy does, so that its
/// client libraries make URLs this server accepts: the signature is base64url
/// (no padding) of HMAC-SHA256(key, salt ‖ path), where path is everything after
/// the signature segment, starting with `/`.
public struct URLSigner: Sendable {
    private let key: [UInt8]
    private let salt: [UInt8]

    /// A signer with this key and salt (raw bytes).
    public init(key: [UInt8], salt: [UInt8]) {
        self.key = key
        self.salt = salt
    }

    /// A signer from hex-encoded key and salt, as imgproxy takes them (`THUMBNAILER_KEY`, `THUMBNAILER_SALT`).
    /// - Throws: ``URLSignerError`` when either is empty or not an even number of hex digits.
    public init(hexKey: String, hexSalt: String) throws(URLSignerError) {
        guard let key = Hex.bytes(hexKey), !key.isEmpty else { throw .invalidHex(name: "key") }
        guard let salt = Hex.bytes(hexSalt), !salt.isEmpty else { throw .invalidHex(name: "salt") }
        self.init(key: key, salt: salt)
    }

    /// The signature segment for `path` (which starts with `/`).
    public func signature(for path: some StringProtocol) -> String {
        Base64.encodeToString(bytes: code(for: path), options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    /// Whether `signature` is the one for `path`, compared in constant time.
    public func isValid(signature: some StringProtocol, for path: some StringProtocol) -> Bool {
        ConstantTime.equal(Array(signature.utf8), Array(self.signature(for: path).utf8))
    }

    private func code(for path: some StringProtocol) -> [UInt8] {
        HMACSHA256.authenticationCode(for: salt + Array(path.utf8), key: key)
    }
}

/// A key or salt that cannot be used.
public enum URLSignerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The named value (`key` or `salt`) is empty or not hex.
    case invalidHex(name: String)

    public var description: String {
        switch self {
        case let .invalidHex(name): "the signing \(name) must be a non-empty, even number of hex digits"
        }
    }
}
