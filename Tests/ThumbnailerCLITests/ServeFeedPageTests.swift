import Foundation
import TestSupport
import Testing
import ThumbnailKit
import ThumbnailServer

/// `thumbnailer serve --feed`'s routes over HTTP: `/feed.json`'s windows and signed URLs, the
/// source sizes the disk tier knows, the page's files and their headers, and a feed that cannot
/// be read. (The page itself is driven in Chromium by ``WebListBrowserTests``.)
extension ServeCommandTests {
    /// Serves a feed of `count` items, each the portrait under its own URL (`/portrait.jpg?i=N`).
    func serveFeed(of count: Int) -> String {
        origin.route("/feed.json", .init(body: JSONFeed.listing((0..<count).map { origin.url("/portrait.jpg?i=\($0)") })))
        origin.route("/portrait.jpg?i=0", .init(body: (try? Fixtures.bytes(ofTestImage: Self.portrait)) ?? []))
        return origin.url("/feed.json")
    }

    @Test func feedJSONListsWindowsWithSignedURLsAndTheSourceSizesTheDiskTierKnows() async throws {
        let server = try await startServer(["--private-addresses", "--feed", serveFeed(of: 250)])
        let first = try await listing(server, "/feed.json")
        #expect(first["count"] as? Int == 250 && first["offset"] as? Int == 0 && first["title"] as? String == "Test")
        #expect(first["view"] as? String == "list" && first["box"] as? Int == 96)
        let items = first["items"] as? [[String: Any]] ?? []
        #expect(items.count == FeedPage.defaultLimit)
        #expect(items.first?["title"] as? String == "portrait.jpg?i=0" && items.first?["width"] == nil)
        // Signed with the server's key, as the test signs them: the page needs no key.
        #expect(items.first?["thumbnails"] as? [String]
                == [path("/portrait.jpg?i=0", size: .fit(96)), path("/portrait.jpg?i=0", size: .fit(192))])

        let thumbnail = try await server.get(try #require((items.first?["thumbnails"] as? [String])?.first))
        #expect(thumbnail.status == 200 && thumbnail.headers["x-source-size"] == "1000x1502")
        // Now the disk tier holds a thumbnail of item 0, which records its source's size.
        let known = try await listing(server, "/feed.json?offset=0&limit=2")
        let knownItems = known["items"] as? [[String: Any]] ?? []
        #expect(knownItems.count == 2)
        #expect(knownItems.first?["width"] as? Int == 1000 && knownItems.first?["height"] as? Int == 1502)
        #expect(knownItems.last?["width"] == nil)

        let last = try await listing(server, "/feed.json?offset=200&limit=100&view=grid")
        #expect(last["offset"] as? Int == 200 && (last["items"] as? [Any])?.count == 50 && last["box"] as? Int == 160)
        #expect(((last["items"] as? [[String: Any]])?.first?["thumbnails"] as? [String])
                == [path("/portrait.jpg?i=200", size: .fit(160), mode: .fill),
                    path("/portrait.jpg?i=200", size: .fit(320), mode: .fill)])
        #expect((try await listing(server, "/feed.json?offset=300")["items"] as? [Any])?.isEmpty == true)
        for query in ["limit=0", "limit=501", "offset=-1", "offset=abc", "view=table"] {
            let refused = try await server.get("/feed.json?\(query)")
            #expect(refused.status == 400, "\(query)")
        }
        #expect(try await server.stop().status == 0)
    }

    @Test func thePageAndItsFilesCarryTheirTypesTagsAndAContentSecurityPolicy() async throws {
        let server = try await startServer(["--private-addresses", "--feed", serveFeed(of: 3)])
        let page = try await server.get("/")
        #expect(page.status == 200 && page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(String(decoding: page.body, as: UTF8.self).contains(#"<script src="list.js" defer></script>"#))
        #expect(page.headers["content-security-policy"]?.contains("default-src 'self'") == true)
        #expect(page.headers["x-content-type-options"] == "nosniff" && page.headers["cache-control"] == "no-cache")
        let tag = try #require(page.headers["etag"])
        #expect(try await server.get("/", headers: ["If-None-Match": tag]).status == 304)
        let head = try await server.get("/", method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty && head.headers["etag"] == tag)
        for (file, type) in [("/list.js", "text/javascript; charset=utf-8"), ("/list.css", "text/css; charset=utf-8")] {
            let response = try await server.get(file)
            #expect(response.status == 200 && response.headers["content-type"] == type && !response.body.isEmpty, "\(file)")
        }
        #expect(try await server.stop().status == 0)

        // Without --feed there is no page, and no route for /.
        let plain = try await startServer()
        #expect(try await plain.get("/").status == 404)
        #expect(try await plain.get("/feed.json").status == 400)
        #expect(try await plain.stop().status == 0)
    }

    @Test func aFeedThatCannotBeFetchedOrReadExitsTwoBeforeListening() async throws {
        for (feed, message) in [(origin.url("/missing.json"), "cannot fetch the feed"), (origin.url("/page.jpg"), "cannot read the feed")] {
            let outcome = try await runBlocking { [temporary] in
                try ChildProcess.run(["serve", "--port", "0", "--private-addresses", "--cache-dir", temporary.path("cache"),
                                      "--feed", feed], environment: Self.environment, limits: .init(duration: .seconds(60)))
            }
            #expect(outcome.status == 2 && outcome.standardError.contains(message), "\(outcome.summary)")
            #expect(!outcome.standardOutput.contains("listening"))
        }
    }

    private func listing(_ server: Server, _ path: String) async throws -> [String: Any] {
        let response = try await server.get(path)
        #expect(response.status == 200 && response.headers["content-type"]?.hasPrefix("application/json") == true, "\(path)")
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }
}
