import Testing
import ThumbnailKit
@testable import ThumbnailServer

/// Signatures as imgproxy computes them: base64url (no padding) of HMAC-SHA256(key, salt ‖ path).
@Suite struct URLSignerTests {
    static let hexKey = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
    static let hexSalt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
    static let signer = try! URLSigner(hexKey: hexKey, hexSalt: hexSalt)

    /// Made outside this code, with
    /// `(printf %s $SALT | xxd -r -p; printf %s "$PATH") | openssl dgst -sha256 -mac HMAC -macopt hexkey:$KEY -binary | base64 | tr '+/' '-_' | tr -d '='`
    /// (and the same from Python's hmac module).
    static let knownAnswers = [
        ("/256/fit/aHR0cDovLzEyNy4wLjAuMTo4MDAwL3Bob3RvLmpwZw", "mWjE8xhyoUYx1i-Ix7gDaXh4XYuCiIPuP-8Yap_S_Fg"),
        ("/320x200/fit/aHR0cDovLzEyNy4wLjAuMTo4MDAwL3Bob3RvLmpwZw.png", "XBqQ3PXYu_SiWPI02LfGVaAD22Z5fHwXO3rqYEX71Zs"),
    ]

    @Test func signsAsOpenSSLComputesIt() {
        for (path, signature) in Self.knownAnswers {
            #expect(Self.signer.signature(for: path) == signature)
            #expect(Self.signer.isValid(signature: signature, for: path))
        }
    }

    @Test func rejectsAForgedTruncatedOrOtherPathsSignature() {
        let (path, signature) = Self.knownAnswers[0]
        var forged = Array(signature)
        forged[10] = forged[10] == "A" ? "B" : "A"
        #expect(!Self.signer.isValid(signature: String(forged), for: path))
        #expect(!Self.signer.isValid(signature: signature.dropLast(), for: path))
        #expect(!Self.signer.isValid(signature: signature + "A", for: path))
        #expect(!Self.signer.isValid(signature: "", for: path))
        // The signature of the 320x200 path does not sign the 256 one.
        #expect(!Self.signer.isValid(signature: Self.knownAnswers[1].1, for: path))
    }

    @Test func anotherKeyOrSaltSignsDifferently() throws {
        let (path, signature) = Self.knownAnswers[0]
        let otherKey = try URLSigner(hexKey: "00" + Self.hexKey.dropFirst(2), hexSalt: Self.hexSalt)
        let otherSalt = try URLSigner(hexKey: Self.hexKey, hexSalt: "00" + Self.hexSalt.dropFirst(2))
        #expect(!otherKey.isValid(signature: signature, for: path))
        #expect(!otherSalt.isValid(signature: signature, for: path))
        #expect(otherSalt.signature(for: path) != Self.signer.signature(for: path))
    }

    @Test func refusesAKeyOrSaltThatIsNotHex() {
        #expect(throws: URLSignerError.invalidHex(name: "key")) { try URLSigner(hexKey: "abc", hexSalt: "00") }
        #expect(throws: URLSignerError.invalidHex(name: "key")) { try URLSigner(hexKey: "zz", hexSalt: "00") }
        #expect(throws: URLSignerError.invalidHex(name: "salt")) { try URLSigner(hexKey: "00", hexSalt: "") }
        #expect(Hex.bytes("00fFa1") == [0, 255, 161])
    }

    @Test func constantTimeEqualityComparesWholeStrings() {
        #expect(ConstantTime.equal(Array("abc".utf8), Array("abc".utf8)))
        #expect(!ConstantTime.equal(Array("abc".utf8), Array("abd".utf8)))
        #expect(!ConstantTime.equal(Array("xbc".utf8), Array("abc".utf8)))
        #expect(!ConstantTime.equal(Array("ab".utf8), Array("abc".utf8)))
        #expect(!ConstantTime.equal(Array("abc".utf8), Array("ab".utf8)))
        #expect(ConstantTime.equal([UInt8](), [UInt8]()))
    }
}
