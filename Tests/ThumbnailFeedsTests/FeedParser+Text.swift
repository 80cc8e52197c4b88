import TestSupport
import ThumbnailFeeds

extension FeedParser {
    /// Parses a document written as a string literal, as UTF-8.
    func parse(_ text: String, source: String) throws(FeedError) -> Feed {
        try parse(Array(text.utf8), source: source)
    }

    /// Parses a document of megabytes on a thread of its own (``runBlocking``): in a debug build that
    /// takes seconds, which would hold a thread of the cooperative pool the other suites need.
    func parseOffThePool(_ text: String, source: String) async throws -> Feed {
        try await runBlocking { try FeedParser().parse(text, source: source) }
    }
}
