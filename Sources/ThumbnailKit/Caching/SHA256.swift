import CNettle

/// SHA-256 through GNU Nettle: cache file names (so no user text reaches a
/// path) and entry checksums.
struct SHA256 {
    private var context = sha256_ctx()

    init() {
        nettle_sha256_init(&context)
    }

    /// Adds bytes to the running digest.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        nettle_sha256_update(&context, bytes.count, base.assumingMemoryBound(to: UInt8.self))
    }

    /// The 32-byte digest of everything added.
    mutating func finish() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_SIZE))
        nettle_sha256_digest(&context, digest.count, &digest)
        return digest
    }

    /// The digest of `bytes`.
    static func digest(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var hasher = SHA256()
        bytes.withContiguousBytes { hasher.update($0) }
        return hasher.finish()
    }

    /// Lower-case hex of the digest of a string's UTF-8.
    static func hexDigest(of text: String) -> String {
        digest(Array(text.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
