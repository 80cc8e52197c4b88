import COpenSSL

/// SHA-256 through OpenSSL's libcrypto: cache file names (so no user text
/// reaches a path) and entry checksums.
struct SHA256: ~Copyable {
    private let context: OpaquePointer

    init() {
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            fatalError("OpenSSL could not set up SHA-256")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds bytes to the running digest.
    func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        EVP_DigestUpdate(context, bytes.baseAddress, bytes.count)
    }

    /// The 32-byte digest of everything added; the hasher is spent afterwards.
    consuming func finish() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        return digest
    }

    /// The digest of `bytes`.
    static func digest(_ bytes: some ContiguousBytesCollection) -> [UInt8] {
        let hasher = SHA256()
        bytes.withContiguousBytes { hasher.update($0) }
        return hasher.finish()
    }

    /// Lower-case hex of the digest of a string's UTF-8.
    static func hexDigest(of text: String) -> String {
        let digest = digest(Array(text.utf8))
        return digest.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
