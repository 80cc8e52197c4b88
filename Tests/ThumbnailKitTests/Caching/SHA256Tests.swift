import Testing
@testable import ThumbnailKit

/// SHA-256 against the FIPS 180-2 examples: the cache's file names and
/// checksums are only as good as the digest.
@Suite struct SHA256Tests {
    static func hex(_ digest: [UInt8]) -> String {
        digest.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    static let millionA = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func theStandardMessagesHaveTheirStandardDigests(message: String, digest: String) {
        #expect(Self.hex(SHA256.digest(Array(message.utf8))) == digest)
        #expect(SHA256.hexDigest(of: message) == digest)
    }

    @Test func aMillionAsHaveTheirStandardDigest() {
        #expect(Self.hex(SHA256.digest(Self.millionA)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func feedingInOddSizedPiecesGivesTheSameDigest() {
        // Pieces that straddle the 64-byte blocks every which way, empty ones included.
        let sizes = [1, 0, 63, 64, 65, 7, 127, 129, 1000, 4093]
        var hasher = SHA256()
        var offset = 0
        var piece = 0
        Self.millionA.withUnsafeBytes { bytes in
            while offset < bytes.count {
                let size = min(sizes[piece % sizes.count], bytes.count - offset)
                hasher.update(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + size]))
                offset += size
                piece += 1
            }
        }
        #expect(Self.hex(hasher.finish()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
