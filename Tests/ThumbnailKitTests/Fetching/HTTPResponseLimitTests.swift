import TestSupport
import Testing
import ThumbnailHTTP
import ThumbnailKit

/// Where the loader's limits on a response fall: the size cap at exactly its bytes, plain or
/// compressed, in pieces that do not add up to it on their own; headers too long in all or
/// in one line; a length that does not fit 64 bits.
@Suite final class HTTPResponseLimitTests: Sendable {
    let server: TestHTTPServer
    static let cap = 100_000

    init() throws {
        server = try TestHTTPServer()
    }

    deinit { server.stop() }

    /// A body of `count` bytes, sent chunked in pieces of `chunkSize`, gzip-compressed first when `gzipped`.
    private func serve(_ path: String, count: Int, chunkSize: Int, gzipped: Bool) -> (url: String, body: [UInt8]) {
        let body = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 9) }
        var behavior = TestHTTPServer.Behavior(body: gzipped ? Compression.compress(body, as: .gzip) : body,
                                               headers: gzipped ? ["Content-Encoding": "gzip"] : [:])
        behavior.chunkSize = chunkSize
        server.route(path, behavior)
        return (server.url(path), body)
    }

    /// No Content-Length (chunked), so only the counting can hold: pieces of 7,777 and 1,000
    /// bytes end at the cap inside a piece, 65,536-byte decoded buffers too.
    @Test(arguments: [(7_777, false), (1_000, false), (7_777, true), (1_000, true)])
    func aBodyOfExactlyTheCapIsAcceptedAndOneByteMoreIsRefused(chunkSize: Int, gzipped: Bool) async throws {
        let exact = serve("/exact", count: Self.cap, chunkSize: chunkSize, gzipped: gzipped)
        #expect(try await HTTPDataLoader().loadBytes(DataRequest(url: exact.url, maximumBytes: Self.cap)) == exact.body)

        let over = serve("/over", count: Self.cap + 1, chunkSize: chunkSize, gzipped: gzipped)
        await #expect(throws: DataLoadingError.tooLarge(over.url, bytes: Self.cap + 1, limit: Self.cap)) {
            try await HTTPDataLoader().loadBytes(DataRequest(url: over.url, maximumBytes: Self.cap))
        }
    }

    @Test func responseHeadersOver256KiBAreAnInvalidResponse() async throws {
        let filler = String(repeating: "x", count: 8_000)
        var headers: [String: String] = [:]
        for index in 0..<40 { headers["X-Filler-\(index)"] = filler }  // 320 kB of headers
        server.route("/flood.jpg", .init(body: Array("pixels".utf8), headers: headers))
        let url = server.url("/flood.jpg")
        await #expect(throws: DataLoadingError.invalidResponse(url, reason: "response headers over 256 KiB")) {
            try await HTTPDataLoader().loadBytes(DataRequest(url: url))
        }
        server.route("/fine.jpg", .init(body: Array("pixels".utf8), headers: ["X-Filler": filler]))
        #expect(try await HTTPDataLoader().loadBytes(DataRequest(url: server.url("/fine.jpg"))) == Array("pixels".utf8))
    }

    /// libcurl keeps one header line whole until it ends, up to 100 KiB, and refuses it past
    /// that; it calls that out of memory, which here is named for what it is.
    @Test func aLocationOf200KBOrAHeaderLineWithoutEndIsAnInvalidResponse() async throws {
        let reason = "a response header line over libcurl's limit of 100 KiB"
        server.route("/far.jpg", .redirect(to: "/" + String(repeating: "a", count: 200_000)))
        let far = server.url("/far.jpg")
        await #expect(throws: DataLoadingError.invalidResponse(far, reason: reason)) {
            try await HTTPDataLoader().loadBytes(DataRequest(url: far))
        }
        var endless = TestHTTPServer.Behavior()
        endless.endlessHeaderLine = true
        server.route("/endless-line.jpg", endless)
        let line = server.url("/endless-line.jpg")
        await #expect(throws: DataLoadingError.invalidResponse(line, reason: reason)) {
            try await HTTPDataLoader().loadBytes(DataRequest(url: line))
        }
        let ended = try await eventually { self.server.bodiesBeingSent("/endless-line.jpg") == 0 }
        #expect(ended)
    }

    @Test(arguments: [("99999999999999999999999", "more than 64 bits"), ("18446744073709551616", "more than 64 bits"),
                      ("9223372036854775808", "more than 64 bits"), ("-1", "not a number"), ("many", "not a number")])
    func aContentLengthThatIsNotA64BitCountIsAnInvalidResponse(length: String, problem: String) async throws {
        var behavior = TestHTTPServer.Behavior(body: Array("pixels".utf8), headers: ["Content-Length": length])
        behavior.omitsContentLength = true  // the server's own
        server.route("/length.jpg", behavior)
        let url = server.url("/length.jpg")
        await #expect(throws: DataLoadingError.invalidResponse(url, reason: "invalid Content-Length: \(problem)")) {
            try await HTTPDataLoader().loadBytes(DataRequest(url: url))
        }
        // Without a cap libcurl reads a length past 64 bits as none, and this client reads it.
        await #expect(throws: DataLoadingError.invalidResponse(url, reason: "invalid Content-Length: \(problem)")) {
            try await HTTPDataLoader().loadBytes(DataRequest(url: url, maximumBytes: 0))
        }
        // The largest that fits is a length, over the cap.
        behavior.headers = ["Content-Length": "9223372036854775807"]
        server.route("/length.jpg", behavior)
        await #expect(throws: DataLoadingError.tooLarge(url, bytes: Int.max, limit: 50_000_000)) {
            try await HTTPDataLoader().loadBytes(DataRequest(url: url))
        }
    }
}
