import Testing
@testable import ThumbnailServer

/// `--allow-source`: host globs, matched on the host alone, and the URLs whose host is in doubt refused.
@Suite struct SourceAllowListTests {
    @Test func allowsAnExactHostOnly() throws {
        let list = try SourceAllowList(patterns: ["images.example.org"])
        #expect(list.allows("https://images.example.org/a.jpg"))
        #expect(list.allows("http://IMAGES.Example.ORG:8080/a.jpg?x=1"))
        #expect(list.allows("https://images.example.org./a.jpg"))
        #expect(!list.allows("https://images.example.org.evil.com/a.jpg"))
        #expect(!list.allows("https://a.images.example.org/a.jpg"))
        #expect(!list.allows("https://example.org/images.example.org/a.jpg"))
        #expect(!list.allows("https://example.org/?u=https://images.example.org/"))
    }

    @Test func allowsAnyHostBelowAStarDomain() throws {
        let list = try SourceAllowList(patterns: ["*.Example.com", "cdn.example.net"])
        #expect(list.allows("https://a.example.com/x.png"))
        #expect(list.allows("https://a.b.example.com/x.png"))
        #expect(list.allows("https://cdn.example.net/x.png"))
        #expect(!list.allows("https://example.com/x.png"))
        #expect(!list.allows("https://badexample.com/x.png"))
        #expect(!list.allows("https://example.com.evil.org/x.png"))
    }

    @Test func refusesAHostInDoubt() throws {
        let list = try SourceAllowList(patterns: ["*.example.com"])
        for url in ["https://user@a.example.com/x.png", "https://evil.org@a.example.com/x.png", "https://a.example.com@evil.org/x.png",
                    "https://evil.org\\@a.example.com/", "https://a%2eexample.com/", "https://[::1]/x.png", "https://a.example.com:x/",
                    "https://a..example.com/", "not a url"] {
            #expect(!list.allows(url), "\(url)")
        }
        #expect(try SourceAllowList(patterns: ["*"]).allows("https://user@[::1]:8080/x.png"))
    }

    @Test func refusesAPatternThatIsNoHostGlob() {
        for pattern in ["", "https://example.com", "example.com/images", "img*.example.com", "*example.com", "a.*.com", "*.", "example.com:443",
                        "exa mple.com"] {
            #expect(throws: SourceAllowList.InvalidPattern(pattern: pattern), "\(pattern)") { try SourceAllowList(patterns: ["x.org", pattern]) }
        }
    }
}
