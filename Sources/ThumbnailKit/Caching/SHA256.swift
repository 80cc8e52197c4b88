import CNettle

/// SHA-256 through GNU Nettle: cache file names (so no user text reaches a
/// path) and entry checksums.
package struct SHA256 {
    private var context = sha256_ctx()

    package init() {
        nettle_sha256_init(&context)
    }

    /// Adds bytes to the running digest.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        nettle_sha256_update(&context, bytes.count, base.assumingMemoryBound(to: UInt8.self))
    }

    /// The 32-byte digest of everything added.
    package mutating func finish() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_SIZE))
        nettle_sha256_digest(&context, digest.count, &digest)
        return digest
    }

    /// The digest of `bytes`.
    package static func digest(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var hasher = SHA256()
        bytes.withContiguousBytes { hasher.update($0) }
        return hasher.finish()
    }

    /// Lower-case hex of the digest of a string's UTF-8.
    package static func hexDigest(of text: String) -> String {
        hex(digest(Array(text.utf8)))
    }

    /// Lower-case hex of `bytes`.
    package static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Lower-case hex of the digest of a file region, read 256 KiB at a time (blocking).
    /// - Throws: ``DiskCacheError`` when the file cannot be read.
    package static func hexDigest(of region: FileRegion) throws -> String {
        var hasher = SHA256()
        var offset = 0
        while offset < region.length {
            let chunk = try FileSystem.read(region.descriptor, count: min(256 * 1024, region.length - offset),
                                            at: region.offset + offset, path: "a file region")
            guard !chunk.isEmpty else { break }
            chunk.withUnsafeBytes { hasher.update($0) }
            offset += chunk.count
        }
        return hex(hasher.finish())
    }
}
