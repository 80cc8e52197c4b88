import Foundation
import TestSupport
import Testing
import ThumbnailHTTP
import ThumbnailKit

/// Content-Encoding: gzip and deflate are undone as fast as the sink takes the bytes and no
/// faster, whole and in order however often the transfer pauses; other and stacked encodings
/// are refused by name, corrupt and cut streams as invalid responses; images are asked for as
/// they are.
@Suite final class HTTPDataLoaderEncodingTests: Sendable {
    let server: TestHTTPServer

    /// 2 MB of lines that differ in a number: gzip makes about a twentieth of it, so every
    /// piece that arrives inflates to more than one 64 KiB buffer, and a slow sink pauses the
    /// transfer part way through a piece.
    static let text: [UInt8] = (0..<40_000).flatMap { Array("item \($0 * 7919 % 100_003): a thumbnail of a photo, in order\n".utf8) }

    init() throws {
        server = try TestHTTPServer()
    }

    deinit { server.stop() }

    /// Serves `body` at `path` with `encoding` as its Content-Encoding; returns its URL.
    private func serve(_ path: String, _ body: [UInt8], encoding: String?) -> String {
        server.route(path, .init(body: body, headers: encoding.map { ["Content-Encoding": $0] } ?? [:]))
        return server.url(path)
    }

    @Test(arguments: [(Compression.Format.gzip, "gzip"), (.gzip, "x-gzip"), (.zlib, "deflate"), (.rawDeflate, "deflate"),
                      (.gzip, "gzip, identity")])
    func aCompressedBodyArrivesWholeThroughASlowSinkHoldingOneBuffer(format: Compression.Format, encoding: String) async throws {
        let compressed = Compression.compress(Self.text, as: format)
        #expect(compressed.count * 10 < Self.text.count, "\(compressed.count) bytes compressed")
        let url = serve("/text", compressed, encoding: encoding)
        let capacity = 64 * 1024
        let loader = try HTTPDataLoader(configuration: .init(bufferCapacity: capacity))
        let sink = HTTPDataLoaderBackpressureTests.SlowCheckingSink(expected: Self.text)
        _ = try await loader.load(DataRequest(url: url), into: sink) { _ in }
        #expect(sink.receivedWholeBody)
        #expect(loader.peakBufferedBodyBytes <= capacity, "held \(loader.peakBufferedBodyBytes) bytes")
    }

    @Test func gzipMembersOneAfterAnotherArriveAsOneBody() async throws {
        let halves = (Array(Self.text[..<700_000]), Array(Self.text[700_000...]))
        let url = serve("/members", Compression.compress(halves.0, as: .gzip) + Compression.compress(halves.1, as: .gzip),
                        encoding: "gzip")
        #expect(try await HTTPDataLoader().loadBytes(DataRequest(url: url)) == Self.text)
    }

    @Test(arguments: [Compression.Format.gzip, .zlib])
    func aBombIsCutAtTheCapOnTheBytesItExpandsTo(format: Compression.Format) async throws {
        let bomb = Compression.bomb(mebibytes: 1024, as: format)
        #expect(bomb.count < 1_100_000, "a GiB in \(bomb.count) bytes")
        let url = serve("/bomb", bomb, encoding: format == .gzip ? "gzip" : "deflate")
        let capacity = 64 * 1024
        let loader = try HTTPDataLoader(configuration: .init(bufferCapacity: capacity))
        let sink = HTTPDataLoaderBackpressureTests.SlowCheckingSink(expected: [UInt8](repeating: 0, count: 8_000_000))
        do {
            _ = try await loader.load(DataRequest(url: url, maximumBytes: 8_000_000), into: sink) { _ in }
            Issue.record("a bomb expanded past the cap")
        } catch let DataLoadingError.tooLarge(_, bytes, limit) {
            #expect(limit == 8_000_000 && bytes > limit && bytes <= limit + capacity, "cut at \(bytes) decoded bytes")
        }
        #expect(loader.peakBufferedBodyBytes <= capacity, "held \(loader.peakBufferedBodyBytes) bytes")
    }

    @Test(arguments: ["zstd", "br", "compress", "gzip;q=1", "gzip, gzip", "deflate, gzip", "gzip, zstd"])
    func anEncodingThatIsNotUndoneIsRefusedByName(encoding: String) async throws {
        let url = serve("/encoded", Compression.compress(Self.text, as: .gzip), encoding: encoding)
        await #expect(throws: DataLoadingError.unsupportedContentEncoding(url, encoding: encoding)) {
            try await HTTPDataLoader().loadBytes(DataRequest(url: url))
        }
        let message = DataLoadingError.unsupportedContentEncoding(url, encoding: encoding).description
        #expect(message.contains(encoding.contains(",") ? "stacked Content-Encoding '\(encoding)'" : "unsupported Content-Encoding '\(encoding)'"))
    }

    @Test func twoContentEncodingLinesAreStacked() async throws {
        let layered = Compression.compress(Compression.compress(Self.text, as: .gzip), as: .gzip)
        server.route("/layered", .init(body: layered, headers: ["Content-Encoding": "gzip", "content-encoding": "gzip"]))
        let url = server.url("/layered")
        await #expect(throws: DataLoadingError.unsupportedContentEncoding(url, encoding: "gzip, gzip")) {
            try await HTTPDataLoader().loadBytes(DataRequest(url: url))
        }
    }

    @Test func corruptAndCutStreamsAreInvalidResponses() async throws {
        let notGzip = serve("/not-gzip", Array("pixels, not gzip".utf8), encoding: "gzip")
        await #expect(throws: DataLoadingError.invalidResponse(notGzip, reason: "corrupt gzip body: incorrect header check")) {
            try await HTTPDataLoader().loadBytes(DataRequest(url: notGzip))
        }
        let compressed = Compression.compress(Self.text, as: .gzip)
        let cut = serve("/cut", Array(compressed[..<(compressed.count / 2)]), encoding: "gzip")
        await #expect(throws: DataLoadingError.invalidResponse(cut, reason: "the gzip body ends before its compressed stream does")) {
            try await HTTPDataLoader().loadBytes(DataRequest(url: cut))
        }
        let trailing = serve("/trailing", Compression.compress(Self.text, as: .zlib) + [1, 2, 3], encoding: "deflate")
        await #expect(throws: DataLoadingError.invalidResponse(trailing, reason: "corrupt deflate body: data after the end of the stream")) {
            try await HTTPDataLoader().loadBytes(DataRequest(url: trailing))
        }
        #expect(!DataLoadingError.invalidResponse(cut, reason: "").isTransient, "the server would send it the same again")
    }

    @Test func imagesAreAskedForAsTheyAreAndAnythingElseMayComeCompressed() async throws {
        let url = serve("/asked", Self.text, encoding: nil)
        for accept in [ImageFormat.acceptedMediaTypes, "image/jpeg", nil, "application/feed+json, */*", "image/png, text/html"] {
            #expect(try await HTTPDataLoader().loadBytes(DataRequest(url: url, accept: accept)) == Self.text)
        }
        #expect(server.receivedRequests.map { $0.headers["accept-encoding"] }
                == ["identity", "identity", "gzip, deflate", "gzip, deflate", "gzip, deflate"])
    }

    @Test func anImageSentGzippedUnaskedArrivesDecodedAllTheSame() async throws {
        let image = try Fixtures.bytes(ofTestImage: "png-rgba-8bit-67x43.png")
        let url = serve("/image.png", Compression.compress(image, as: .gzip), encoding: "gzip")
        let request = DataRequest(url: url, accept: ImageFormat.acceptedMediaTypes)
        #expect(try await HTTPDataLoader().loadBytes(request) == image)
        #expect(server.receivedRequests.first?.headers["accept-encoding"] == "identity")
    }
}
