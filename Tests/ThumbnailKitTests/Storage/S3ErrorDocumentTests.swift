import TestSupport
import Testing
import ThumbnailHTTP

/// S3's `<Error>` documents read back into the error a refusal reports, from a loopback server that
/// answers with them: the text of an element, its character references undone, whatever follows them.
@Suite struct S3ErrorDocumentTests {
    /// Found by `scripts/fuzz.sh s3`: a combining mark after a reference's `;` made one character of
    /// them, so `&amp;` stayed in the message as sent.
    @Test func referencesFollowedByACombiningMarkAreUndone() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let document = "<Error><Code>AccessDenied</Code><Message>Q&amp;\u{301}A &lt;\u{301}b&gt; &#233;\u{301}</Message></Error>"
        server.route("/b/p/thumbnails/k", .init(status: 403, body: Array(document.utf8)))
        let store = try S3ObjectStore(
            configuration: .init(endpoint: server.url(""), region: "us-east-1", bucket: "b", prefix: "p",
                                 accessKeyID: "key", secretAccessKey: "secret"))

        let error = await #expect(throws: S3Error.self) { try await store.object(forKey: "thumbnails/k") }
        #expect(error == .refused("GET s3://b/p/thumbnails/k", status: 403, code: "AccessDenied",
                                  message: "Q&\u{301}A <\u{301}b> \u{E9}\u{301}"))
    }
}
