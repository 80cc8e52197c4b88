import Testing
import ThumbnailKit
@testable import ThumbnailServer

/// Thumbnail URLs: the shape, the signature checked before the rest is read, every malformed path a 400.
@Suite struct ThumbnailURLTests {
    static let signer = URLSignerTests.signer
    static let signed = SigningPolicy.signed(signer)
    static let source = "http://127.0.0.1:8000/photo.jpg"

    @Test func readsASignedURL() throws {
        let (path, signature) = URLSignerTests.knownAnswers[1]
        let url = try ThumbnailURL(path: "/" + signature + path, signing: Self.signed)
        #expect(url == ThumbnailURL(size: .fit(width: 320, height: 200), mode: .fit, source: Self.source, format: .png))
    }

    @Test func makesThePathItReads() throws {
        for format in [nil] + OutputFormat.allCases {
            for mode in [ResizeMode.fit, .fill] {
                let url = ThumbnailURL(size: .fit(width: 17, height: 9000), mode: mode, source: Self.source + "?q=ü", format: format)
                #expect(try ThumbnailURL(path: url.path(signing: Self.signed), signing: Self.signed) == url)
                #expect(try ThumbnailURL(path: url.path(signing: .unsigned), signing: .unsigned) == url)
            }
        }
        #expect(ThumbnailURL(size: .fit(256), mode: .fit, source: Self.source).unsignedPath == URLSignerTests.knownAnswers[0].0)
    }

    @Test func refusesABadSignature() {
        let (path, signature) = URLSignerTests.knownAnswers[0]
        let otherSize = "/257/fit/aHR0cDovLzEyNy4wLjAuMTo4MDAwL3Bob3RvLmpwZw"
        for bad in ["/" + signature.dropLast() + path, "/" + signature + otherSize, "/_" + path, "//" + path.dropFirst(),
                    "/" + URLSignerTests.knownAnswers[1].1 + path] {
            #expect(throws: ThumbnailURLError.badSignature) { try ThumbnailURL(path: bad, signing: Self.signed) }
        }
        // Unsigned, only `_` is accepted: a real signature is not a way in either.
        #expect(throws: ThumbnailURLError.badSignature) { try ThumbnailURL(path: "/" + signature + path, signing: .unsigned) }
        #expect(throws: Never.self) { try ThumbnailURL(path: "/_" + path, signing: .unsigned) }
    }

    @Test(arguments: [
        "/_/256/fit/%%%%", "/_/256/fit/aHR0cDovL2E*", "/_/256/fit/", "/_/256/fit/aHR0cDovLzEyNy4wLjAuMTo4MDAwL3Bob3RvLmpwZw.gif",
        "/_/256/fit/aHR0cDovLzEyNy4wLjAuMTo4MDAwL3Bob3RvLmpwZw.", "/_/256/fit/aHR0cDovLzEyNy4wLjAuMTo4MDAwL3Bob3RvLmpwZw/x",
        "/_/256/aHR0cDovLzEyNy4wLjAuMTo4MDAwL3Bob3RvLmpwZw", "/_/0/fit/aHR0cDovLzEyNy4wLjAuMTo4MDAwL3Bob3RvLmpwZw",
        "/_/256x/fit/aHR0cDovLzEyNy4wLjAuMTo4MDAwL3Bob3RvLmpwZw", "/_/256/crop/aHR0cDovLzEyNy4wLjAuMTo4MDAwL3Bob3RvLmpwZw",
        "_/256/fit/aHR0cDovLzEyNy4wLjAuMTo4MDAwL3Bob3RvLmpwZw", "/",
        // file:///etc/passwd and a plain path: the pipeline would read them from the server's disk.
        "/_/256/fit/ZmlsZTovLy9ldGMvcGFzc3dk", "/_/256/fit/L2V0Yy9wYXNzd2Q",
    ])
    func refusesAMalformedPath(_ path: String) {
        #expect {
            try ThumbnailURL(path: path, signing: .unsigned)
        } throws: { error in
            if case .malformed? = error as? ThumbnailURLError { true } else { false }
        }
    }

    @Test func refusesA64KiBPath() {
        let huge = "/" + URLSignerTests.knownAnswers[0].1 + "/256/fit/" + String(repeating: "A", count: 64 << 10)
        #expect(throws: ThumbnailURLError.malformed("URL too long")) { try ThumbnailURL(path: huge, signing: Self.signed) }
    }
}
