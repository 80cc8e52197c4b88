import TestSupport
import Testing
import ThumbnailHTTP
import ThumbnailKit

/// A limit of 0 in the library is a limit of 0, never "no limit": an endless
/// body against `maximumBytes: 0` ends at its first byte. (Before, libcurl's
/// "0 means none" let it run until the server's 1 GiB cut.)
@Suite final class ZeroLimitTests: Sendable {
    let server: TestHTTPServer

    init() throws {
        server = try TestHTTPServer()
    }

    deinit { server.stop() }

    @Test(arguments: [TestHTTPServer.EndlessBody.closeDelimited, .chunked])
    func aZeroByteLimitRefusesTheFirstByte(framing: TestHTTPServer.EndlessBody) async throws {
        server.route("/endless", .endless(framing))
        let loader = try HTTPDataLoader()
        let request = DataRequest(url: server.url("/endless"), maximumBytes: 0)
        await #expect {
            _ = try await loader.loadBytes(request)
        } throws: { error in
            guard case let DataLoadingError.tooLarge(_, _, limit) = error else { return false }
            return limit == 0
        }
        #expect(server.sentBodyBytes("/endless") < TestHTTPServer.endlessBodyLimit / 16, "\(server.sentBodyBytes("/endless")) bytes sent")
    }

    @Test func anEmptyBodyFitsAZeroByteLimit() async throws {
        server.route("/empty", .init(body: []))
        let loader = try HTTPDataLoader()
        let bytes = try await loader.loadBytes(DataRequest(url: server.url("/empty"), maximumBytes: 0))
        #expect(bytes.isEmpty)
    }
}
