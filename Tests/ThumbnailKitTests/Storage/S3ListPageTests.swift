import Testing
@testable import ThumbnailHTTP

/// A ListObjectsV2 page (`encoding-type=url`) is read whole or refused as
/// malformed: no object is skipped, no size goes negative, no byte of a key is
/// guessed or dropped. (Found by fuzzing: a `<Size>` of `-5` was listed, and a
/// `%zz` in a key lost the two characters after it.)
struct S3ListPageTests {
    static let request = "LIST s3://bucket/thumbs"

    private func page(_ contents: [(key: String, size: String)], truncated: Bool = false) -> [UInt8] {
        let objects = contents.map { "<Contents><Key>\($0.key)</Key><Size>\($0.size)</Size></Contents>" }.joined()
        return Array(("<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult><IsTruncated>\(truncated)</IsTruncated>"
            + objects + "<NextContinuationToken>t1</NextContinuationToken></ListBucketResult>").utf8)
    }

    private func reason(of body: [UInt8]) -> String? {
        do {
            _ = try S3ListPage(body, request: Self.request)
            return nil
        } catch {
            guard case let .malformedAnswer(request, reason) = error, request == Self.request else {
                return "unexpected \(error)"
            }
            #expect("\(error)".hasPrefix("object store sent a malformed answer to \(Self.request): "))
            return reason
        }
    }

    @Test func aWellFormedPageIsReadWithItsKeysDecoded() throws {
        let read = try S3ListPage(page([("thumbs/a%20b.jpg", "0"), ("thumbs/%E2%82%AC%2f", "12345"), ("thumbs/x+y", "7")],
                                       truncated: true), request: Self.request)
        #expect(read.objects.map(\.key) == ["thumbs/a b.jpg", "thumbs/€/", "thumbs/x y"])
        #expect(read.objects.map(\.bytes) == [0, 12345, 7])
        #expect(read.isTruncated && read.nextContinuationToken == "t1")
    }

    @Test(arguments: ["-5", "-0", "+5", " 5", "5x", "", "99999999999999999999"])
    func aSizeThatIsNotANonNegativeWholeNumberIsMalformed(size: String) {
        let reason = reason(of: page([("thumbs/a", "1"), ("thumbs/b", size)]))
        #expect(reason == "the object thumbs/b has the size \"\(size)\", not a non-negative whole number")
    }

    @Test func anObjectWithoutAKeyOrASizeIsMalformed() {
        #expect(reason(of: Array("<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>".utf8))
            == "an object without a <Key>")
        #expect(reason(of: Array("<ListBucketResult><Contents><Key>k</Key></Contents></ListBucketResult>".utf8))
            == "the object k has the size (none), not a non-negative whole number")
    }

    @Test(arguments: ["thumbs/%zzab", "thumbs/ab%", "thumbs/ab%4", "thumbs/%4g", "thumbs/%%41", "thumbs/%+f"])
    func aKeyWithABrokenEscapeIsMalformedNotShortened(key: String) {
        #expect(reason(of: page([(key, "1")])) == "the key \(key) has a % not followed by two hex digits")
    }
}
