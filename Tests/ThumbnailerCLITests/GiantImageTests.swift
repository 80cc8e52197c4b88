import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// `thumbnailer thumb` on giant images made by the test (never committed): the
/// whole process stays within 64 MiB, decoding within the decoder memory limit
/// (a progressive JPEG's coefficients spill to a temporary file) or refusing
/// before it allocates, with the bytes it would need and the option that allows it.
@Suite(.serialized) struct GiantImageTests {
    static let processBound = 64 << 20
    let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory()
    }

    private func path(_ name: String) -> String { temporary.url.appendingPathComponent(name).path }

    /// Makes the image and writes it on a thread of its own (``runBlocking``): a giant image takes
    /// seconds to encode, which would hold a thread of the cooperative pool the other suites need.
    private func write(_ name: String, _ make: @escaping @Sendable () -> [UInt8]) async throws -> String {
        let path = path(name)
        try await runBlocking { try Data(make()).write(to: URL(fileURLWithPath: path)) }
        return path
    }

    /// Runs the built binary to its end off the cooperative pool.
    private func runThumbnailer(_ arguments: [String], limits: ChildProcess.Limits? = nil) async throws -> ChildProcess.Outcome {
        try await runBlocking { try ChildProcess.run(arguments, limits: limits) }
    }

    private func pixel(_ thumbnail: Thumbnail, x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let pixels = thumbnail.pixels, offset = (y * thumbnail.width + x) * 4
        return (pixels[offset], pixels[offset + 1], pixels[offset + 2], pixels[offset + 3])
    }

    private func expectWithinTheProcessBound(_ run: ChildProcess.Outcome, _ what: String) {
        #if os(Linux)
        #expect(run.peakResidentBytes > 0 && run.peakResidentBytes <= Self.processBound,
                "\(what): peak RSS \(run.peakResidentBytes >> 20) MiB")
        #endif
    }

    /// 9000×9000 4:4:4 progressive at 1200 px is decoded at 2/8 by libjpeg, which keeps all
    /// 64 coefficients of 3 × 1125 × 1125 blocks: 486 MB, past the 32 MiB limit, so they go
    /// to a temporary file and the process peaks at its thumbnail and a few windows.
    @Test func aProgressive9000x9000JPEGIsThumbnailedAt1200PixelsWithinTheProcessBound() async throws {
        let input = try await write("giant-progressive.jpg") { GiantJPEG.progressive(width: 9000, height: 9000) }
        let run = try await runThumbnailer(["thumb", input, "-s", "1200", "--json", "-o", path("out.png")],
                                       limits: ChildProcess.Limits(duration: .seconds(120), residentBytes: 1 << 30))

        #expect(run.status == 0, "\(run.standardError)")
        expectWithinTheProcessBound(run, "progressive 9000×9000 at 1200 px")
        #expect(run.jsonObject["scale"] as? String == "2/8", "\(run.standardOutput)")
        let thumbnail = try await ThumbnailDecoder(size: .original).decode(try Fixtures.bytes(atPath: path("out.png")))
        #expect(thumbnail.width == 1200 && thumbnail.height == 1200)
        // Luma climbs from left to right, Cb (blue) from top to bottom: the coefficients came back from the file in place.
        let left = pixel(thumbnail, x: 5, y: 600), right = pixel(thumbnail, x: 1194, y: 600)
        let top = pixel(thumbnail, x: 600, y: 5), bottom = pixel(thumbnail, x: 600, y: 1194)
        #expect(Int(right.g) - Int(left.g) > 200, "left \(left), right \(right)")
        #expect(Int(bottom.b) - Int(top.b) > 200, "top \(top), bottom \(bottom)")
    }

    /// A limit too small even for the windows (5 rows of 250 blocks, 160 KB, for each of 3
    /// components of a 2000×2000 file) is refused, naming the bytes and the option.
    @Test func aProgressiveJPEGWhoseWindowsDoNotFitIsRefusedNamingTheBytesAndTheOption() async throws {
        let input = try await write("progressive.jpg") { GiantJPEG.progressive(width: 2000, height: 2000) }
        let run = try await runThumbnailer(["thumb", input, "-s", "600", "--max-decoder-memory", "256K",
                                        "-o", path("out.png")])

        #expect(run.status == 1)
        #expect(run.standardError.contains("tooLarge") || run.standardError.contains("too large"), "\(run.standardError)")
        #expect(run.standardError.contains(" bytes ("), "\(run.standardError)")
        #expect(run.standardError.contains("over the decoder memory limit of 262144 bytes (--max-decoder-memory"),
                "\(run.standardError)")
        expectWithinTheProcessBound(run, "refused progressive JPEG")
    }

    /// A baseline file needs no whole-image buffer: 9000×9000 streams a row of blocks at a time.
    @Test func aBaseline9000x9000JPEGIsThumbnailedWithinTheProcessBound() async throws {
        let input = try await write("giant-baseline.jpg") { GiantJPEG.baseline(width: 9000, height: 9000) }
        let run = try await runThumbnailer(["thumb", input, "-s", "1200", "-o", path("out.png")],
                                       limits: ChildProcess.Limits(duration: .seconds(120), residentBytes: 1 << 30))

        #expect(run.status == 0, "\(run.standardError)")
        expectWithinTheProcessBound(run, "baseline 9000×9000 at 1200 px")
        let thumbnail = try await ThumbnailDecoder(size: .original).decode(try Fixtures.bytes(atPath: path("out.png")))
        #expect(thumbnail.width == 1200 && thumbnail.height == 1200)
    }

    /// libwebp decodes a lossy frame's alpha whole before any row comes out, and a losslessly
    /// compressed alpha stream may need 4 more bytes a pixel: 500 MB for 10000×10000, known
    /// from the ALPH chunk's header and refused before libwebp is asked to decode.
    @Test func a10000x10000LossyWebPWithAlphaIsRefusedBeforeItsAlphaPlaneIsAllocated() async throws {
        let input = try await write("giant-alpha.webp") { GiantWebP.lossyWithAlpha(width: 10000, height: 10000) }
        let run = try await runThumbnailer(["thumb", input, "-s", "256", "-o", path("out.png")])

        #expect(run.status == 1)
        #expect(run.standardError.contains("WebP lossy frame of 10000x10000 (libwebp keeps its alpha plane whole) needs 500"),
                "\(run.standardError)")
        #expect(run.standardError.contains("over the decoder memory limit of 32 MiB (--max-decoder-memory"),
                "\(run.standardError)")
        expectWithinTheProcessBound(run, "refused 10000×10000 WebP")
    }

    /// `warm` of both giant images over loopback, at both sizes of the table (1200 px: libjpeg at
    /// 2/8 with its coefficients spilled; 256 px: the DC-only path): the JPEG is cached, the WebP
    /// fails with the bytes it needs, and the whole process stays within 64 MiB.
    @Test func warmingBothGiantImagesStaysWithinTheProcessBound() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let (jpeg, webp) = try await runBlocking {
            (GiantJPEG.progressive(width: 9000, height: 9000), GiantWebP.lossyWithAlpha(width: 10000, height: 10000))
        }
        server.route("/giant.jpg", .init(body: jpeg))
        server.route("/giant.webp", .init(body: webp))
        server.route("/feed.json", .init(body: JSONFeed.listing([server.url("/giant.jpg"), server.url("/giant.webp")])))
        let run = try await runThumbnailer(["warm", server.url("/feed.json"), "--cache-dir", path("cache"), "--json",
                                        "-s", "1200", "-s", "256"],
                                       limits: ChildProcess.Limits(duration: .seconds(120), residentBytes: 1 << 30))

        #expect(run.status == 1, "\(run.standardError)")
        let summary = run.jsonObject
        #expect(summary["failed"] as? Int == 1 && summary["thumbnailsWritten"] as? Int == 2, "\(run.standardOutput)")
        let failures = summary["failures"] as? [[String: Any]] ?? []
        #expect((failures.first?["reason"] as? String)?.contains("needs 500") == true, "\(failures)")
        expectWithinTheProcessBound(run, "warm of both giant images")
    }

    /// The same kind of file small enough to fit (2000×2000: 20 MB of alpha buffers) decodes
    /// under the default limit, and is refused once the limit is set below what it needs.
    @Test func aLossyWebPWithAlphaThatFitsDecodesAndTheOptionSetsTheLimit() async throws {
        let input = try await write("alpha.webp") { GiantWebP.lossyWithAlpha(width: 2000, height: 2000) }
        let decoded = try await runThumbnailer(["thumb", input, "-s", "256", "-o", path("out.png")])
        let refused = try await runThumbnailer(["thumb", input, "-s", "256", "--max-decoder-memory", "16M",
                                            "-o", path("refused.png")])

        #expect(decoded.status == 0, "\(decoded.standardError)")
        expectWithinTheProcessBound(decoded, "2000×2000 WebP with alpha")
        let thumbnail = try await ThumbnailDecoder(size: .original).decode(try Fixtures.bytes(atPath: path("out.png")))
        #expect(thumbnail.width == 256 && thumbnail.height == 256)
        #expect(pixel(thumbnail, x: 128, y: 128).a == GiantWebP.alpha)
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("needs 200"), "\(refused.standardError)")
        #expect(refused.standardError.contains("over the decoder memory limit of 16 MiB"), "\(refused.standardError)")
    }

    /// An Adam7 PNG's rows arrive pass by pass, so its area filter keeps 64-bit sums for every
    /// sample of the whole output: 32 bytes a pixel of an RGBA thumbnail. At 1500 px of a
    /// 3000×3000 file that is 72 MB, past the 32 MiB limit: refused before it is allocated,
    /// naming the bytes and the option; at 256 px (2 MiB of sums) and with the option raised it decodes.
    @Test func anAdam7PNGWhoseWholeOutputSumsPassTheLimitIsRefusedBeforeTheyAreAllocated() async throws {
        let input = try await write("adam7.png") { GiantPNG.rgba(width: 3000, height: 3000, interlaced: true) }
        let refused = try await runThumbnailer(["thumb", input, "-s", "1500", "-o", path("refused.png")])
        let small = try await runThumbnailer(["thumb", input, "-s", "256", "-o", path("small.png")])
        let allowed = try await runThumbnailer(["thumb", input, "-s", "1500", "--max-decoder-memory", "80M",
                                            "-o", path("allowed.png")])

        #expect(refused.status == 1)
        #expect(refused.standardError.contains("PNG needs 720"), "\(refused.standardError)")
        #expect(refused.standardError.contains("over the decoder memory limit of 32 MiB (--max-decoder-memory"),
                "\(refused.standardError)")
        expectWithinTheProcessBound(refused, "refused Adam7 3000×3000 at 1500 px")
        #expect(small.status == 0, "\(small.standardError)")
        expectWithinTheProcessBound(small, "Adam7 3000×3000 at 256 px")
        #expect(allowed.status == 0, "\(allowed.standardError)")
        let thumbnail = try await ThumbnailDecoder(size: .original).decode(try Fixtures.bytes(atPath: path("allowed.png")))
        #expect(thumbnail.width == 1500 && thumbnail.height == 1500)
        let left = pixel(thumbnail, x: 2, y: 750), right = pixel(thumbnail, x: 1497, y: 750)
        #expect(left.r < 5 && right.r > 250 && right.a == GiantPNG.alpha, "left \(left), right \(right)")
    }

    /// A non-interlaced PNG streams, but its area filter sums two source rows of 64-bit samples:
    /// 4,000,000 × 1 RGBA needs 256 MB of sums beside three rows of 16 MB (libpng's two and
    /// ours), refused the same way.
    @Test func aPNGWhoseRowSumsPassTheLimitIsRefusedBeforeTheyAreAllocated() async throws {
        let input = try await write("wide.png") { GiantPNG.rgba(width: 4_000_000, height: 1, interlaced: false) }
        let refused = try await runThumbnailer(["thumb", input, "-s", "256", "-o", path("refused.png")])

        #expect(refused.status == 1)
        #expect(refused.standardError.contains("PNG needs 304"), "\(refused.standardError)")
        #expect(refused.standardError.contains("over the decoder memory limit of 32 MiB (--max-decoder-memory"),
                "\(refused.standardError)")
        expectWithinTheProcessBound(refused, "refused 4,000,000×1 PNG")
    }
}
