import Foundation
import Testing
import TestSupport
@testable import ThumbnailFeeds

/// Hostile XML: entities that read local files, and entities that expand a small document into gigabytes.
@Suite struct XMLSafetyTests {
    static let source = "https://example.com/feed.xml"

    /// A temporary file holding a unique secret, and the secret.
    static func secretFile(named name: String, contents: (String) -> String) throws -> (URL, String) {
        let secret = "SECRET-\(UUID().uuidString)"
        let file = try Fixtures.temporaryDirectory().appendingPathComponent(name)
        try contents(secret).write(to: file, atomically: true, encoding: .utf8)
        return (file, secret)
    }

    /// Everything a parse puts out, as text: the feed's titles and URLs, or the error's description.
    static func output(of document: String) -> String {
        do {
            let feed = try FeedParser().parse(document, source: source)
            return ([feed.title] + feed.items.map(\.title)).compactMap { $0 }.joined(separator: "\n")
                + feed.uniqueImageURLs.joined(separator: "\n") + feed.refused.map(\.url).joined(separator: "\n")
        } catch {
            return error.description
        }
    }

    @Test func anExternalEntityIsRefusedAndTheFileNeverRead() throws {
        let (file, secret) = try Self.secretFile(named: "secret.txt") { $0 }
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        for systemID in [file.absoluteString, "file:///etc/passwd"] {
            let declaration = "<!ENTITY e SYSTEM \"\(systemID)\">"
            let document = """
                <?xml version="1.0"?>
                <!DOCTYPE rss [\(declaration)]>
                <rss version="2.0"><channel><title>&e;</title>
                <item><title>&e;</title><enclosure url="https://example.com/&e;.jpg" type="image/jpeg"/></item>
                </channel></rss>
                """
            // At the declaration's end, its “>”.
            #expect(throws: FeedError.unsafeXML(line: 2, column: 15 + declaration.count, reason: "the DOCTYPE declares the "
                + "entity “e”, refused: feeds do not need entities, and they can make a small document expand to gigabytes or "
                + "read local files")) {
                try FeedParser().parse(document, source: Self.source)
            }
            let output = Self.output(of: document)
            #expect(!output.contains(secret))
            #expect(!output.contains("root:"))
        }
    }

    @Test func anUnparsedEntityIsRefusedToo() {
        let declaration = #"<!ENTITY logo SYSTEM "https://example.com/logo.gif" NDATA gif>"#
        let document = """
            <?xml version="1.0"?>
            <!DOCTYPE rss [<!NOTATION gif SYSTEM "image/gif">\(declaration)]>
            <rss version="2.0"><channel><item><enclosure url="https://example.com/a.jpg" type="image/jpeg"/></item></channel></rss>
            """
        #expect(throws: FeedError.unsafeXML(line: 2, column: 49 + declaration.count, reason: "the DOCTYPE declares the "
            + "entity “logo”, refused: feeds do not need entities, and they can make a small document expand to gigabytes "
            + "or read local files")) {
            try FeedParser().parse(document, source: Self.source)
        }
    }

    @Test func anExternalDTDIsNeverLoaded() throws {
        let (dtd, secret) = try Self.secretFile(named: "evil.dtd") { "<!ENTITY secret \"\($0)\">" }
        defer { try? FileManager.default.removeItem(at: dtd.deletingLastPathComponent()) }
        let document = """
            <?xml version="1.0"?>
            <!DOCTYPE rss SYSTEM "\(dtd.absoluteString)">
            <rss version="2.0"><channel><title>before &secret; after</title>
            <item><title>Photo</title><enclosure url="https://example.com/a.jpg" type="image/jpeg"/></item>
            </channel></rss>
            """
        let feed = try FeedParser().parse(document, source: Self.source)
        #expect(feed.title == "before  after", "the undeclared entity is left out")
        #expect(feed.items == [FeedItem(title: "Photo", imageURLs: ["https://example.com/a.jpg"])])
        #expect(!Self.output(of: document).contains(secret))
    }

    @Test func aBillionLaughsIsRefusedAtItsFirstDeclaration() throws {
        var document = "<?xml version=\"1.0\"?>\n<!DOCTYPE rss [\n<!ENTITY lol0 \"lol\">\n"
        for level in 1...9 {
            document += "<!ENTITY lol\(level) \"\(String(repeating: "&lol\(level - 1);", count: 10))\">\n"
        }
        document += "]>\n<rss><channel><title>&lol9;</title></channel></rss>"
        let error = #expect(throws: FeedError.self) { try FeedParser().parse(document, source: Self.source) }
        guard case .unsafeXML(line: 3, column: 20, _)? = error else {
            Issue.record("expected unsafe XML at the end of the first entity, got \(String(describing: error))")
            return
        }
        let recorder = XMLEventRecorder()
        try XMLEventParser.parse(FeedBytes(Array(document.utf8)), reportingTo: recorder)
        #expect(recorder.events == ["refused entity lol0 at 3:20"], "libxml2 reads nothing after the first declaration")
    }

    @Test func oneLargeEntityReferencedManyTimesIsRefusedBeforeAnyReference() throws {
        // libxml2 2.9 has no limit on this one: it took 8 s when parsed.
        let document = "<?xml version=\"1.0\"?><!DOCTYPE rss [<!ENTITY a \"\(String(repeating: "x", count: 100_000))\">]>"
            + "<rss><channel><title>\(String(repeating: "&a;", count: 100_000))</title></channel></rss>"
        let recorder = XMLEventRecorder()
        try XMLEventParser.parse(FeedBytes(Array(document.utf8)), reportingTo: recorder)
        #expect(recorder.events == ["refused entity a at 1:100050"], "no element, no text: libxml2 stopped at the declaration's “>”")
        let error = #expect(throws: FeedError.self) { try FeedParser().parse(document, source: Self.source) }
        guard case .unsafeXML? = error else {
            Issue.record("expected unsafe XML, got \(String(describing: error))")
            return
        }
    }

    @Test func aProcessingInstructionWithAColonIsNoCrash() throws {
        // FoundationXML's XMLParser crashed on this (a null pointer in its callbacks); libxml2 only
        // reports a namespace error, which does not stop the feed.
        let document = #"<rss><channel><?pi:x?><item><title>1</title><enclosure url="a.jpg" type="image/jpeg"/></item>"#
            + "</channel></rss>"
        let feed = try FeedParser().parse(document, source: Self.source)
        #expect(feed.items == [FeedItem(title: "1", imageURLs: ["https://example.com/a.jpg"])])
    }

    @Test func theWordsOfADeclarationOutsideTheDoctypeAreJustText() throws {
        let document = """
            <?xml version="1.0"?>
            <!-- <!ENTITY in a comment> -->
            <!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" "http://my.netscape.com/publish/formats/rss-0.91.dtd">
            <rss version="0.91"><channel><title>XML tips</title>
            <item><title><![CDATA[Never write <!ENTITY x "y"> in a feed]]></title>
            <enclosure url="https://example.com/tip.png" type="image/png"/></item>
            </channel></rss>
            """
        let feed = try FeedParser().parse(document, source: Self.source)
        #expect(feed.items == [FeedItem(title: "Never write <!ENTITY x \"y\"> in a feed", imageURLs: ["https://example.com/tip.png"])])
    }
}
