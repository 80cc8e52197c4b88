import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// libjxl allocates with malloc and ends the process when an allocation fails, so a JPEG XL decode
/// is admitted by an estimate of libjxl's memory from the header rather than held to a limit as it
/// grows. This checks the estimate against what a whole process really uses, on the costliest kind
/// of file cjxl makes (progressive lossless with 128-pixel groups and photon noise, with alpha:
/// every group's buffers kept at once, whole-image planes, squeeze temporaries): `thumb`'s peak
/// resident memory less that of `thumb` on an 8×8 JPEG XL (the process, its libraries, libjxl's
/// tables) stays within the `peakDecodeBytes` it reports, of which the estimate is nearly all.
@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/cjxl"), "needs cjxl (libjxl-tools)"))
struct JPEGXLMemoryTests {
    let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory()
    }

    /// ``PatternImage`` with alpha, as a PNG for cjxl.
    private func patternPNG(width: Int, height: Int) throws -> String {
        let path = temporary.path("source-\(width)x\(height).png")
        try Data(PatternImage.png(width: width, height: height, alpha: true)).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Encodes a pattern with cjxl and `arguments`, then runs `thumb` on it with room for any estimate.
    private func thumb(width: Int, height: Int, _ arguments: [String]) async throws -> ChildProcess.Outcome {
        let source = try patternPNG(width: width, height: height), output = temporary.path("\(width)x\(height).jxl")
        return try await runBlocking {
            let encoded: ChildProcess.Outcome = try ChildProcess.run([source, output] + arguments, executable: "/usr/bin/cjxl")
            guard encoded.status == 0 else { throw ReferenceDecoderFailure(message: encoded.standardError) }
            return try ChildProcess.run(["thumb", output, "-s", "256", "--json", "-o", self.temporary.path("out.png"),
                                         "--max-jxl-decoder-memory", "1G"])
        }
    }

    @Test func libjxlsRealMemoryStaysWithinTheEstimateTheDecodeWasAdmittedBy() async throws {
        let baseline = try await thumb(width: 8, height: 8, ["-d", "1"])
        let costly = try await thumb(width: 1224, height: 816, ["-p", "-d", "0", "-g", "0", "--photon_noise=ISO3200"])

        #expect(baseline.status == 0 && costly.status == 0, "\(baseline.standardError) \(costly.standardError)")
        let stated = try #require(costly.jsonObject["peakDecodeBytes"] as? Int)
        // The estimate for 1224×816 with one extra channel, 121 MB, is what the decode reports.
        #expect(stated > 115_000_000, "\(costly.standardOutput)")
        #if os(Linux)
        let used = costly.peakResidentBytes - baseline.peakResidentBytes
        #expect(used > 0 && used <= stated, "the decode used \(used >> 20) MiB more than an 8×8 one, stated \(stated >> 20) MiB")
        #endif
    }
}
