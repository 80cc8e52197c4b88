import CNettle

/// HMAC-SHA256 through GNU Nettle, which the package already links for SHA-256.
package enum HMACSHA256 {
    /// The 32-byte MAC of `message` under `key`.
    package static func authenticationCode(for message: some Collection<UInt8>, key: [UInt8]) -> [UInt8] {
        var context = hmac_sha256_ctx()
        key.withUnsafeBufferPointer { nettle_hmac_sha256_set_key(&context, $0.count, $0.baseAddress) }
        let bytes = Array(message)
        bytes.withUnsafeBufferPointer { nettle_hmac_sha256_update(&context, $0.count, $0.baseAddress) }
        var code = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_SIZE))
        nettle_hmac_sha256_digest(&context, code.count, &code)
        return code
    }
}
