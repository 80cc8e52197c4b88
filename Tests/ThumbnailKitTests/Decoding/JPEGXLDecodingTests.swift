import Foundation
import PropertyBased
import TestSupport
import Testing
@testable import ThumbnailKit

/// JPEG XL through libjxl: float rows into the area filter, libjxl's memory estimated from the
/// header and refused past its own limit (`maxJPEGXLDecoderMemory`), and the bound
/// ct_jxl_decode.c states held on pictures cjxl makes at random sizes and in its costly modes.
/// That libjxl's real memory stays within the estimate is JPEGXLMemoryTests' (a whole process);
/// pixels against djxl are in ReferenceDecoderTests, libjxl's conformance set in
/// ModernFormatsConformanceTests.
@Suite struct JPEGXLDecodingTests {
    static let photo = "jxl-photo-lossy-1024x683.jxl"
    static let cjxl = "/usr/bin/cjxl"

    /// cjxl's ways of coding a picture: the group buffers and whole-image planes the estimate
    /// covers come from the modular ones.
    enum Mode: String, CaseIterable, Sendable {
        case lossy, lossless, modularLossy, progressiveLossless, losslessWithNoise

        var arguments: [String] {
            switch self {
            case .lossy: ["-d", "1"]
            case .lossless: ["-d", "0"]
            case .modularLossy: ["-m", "1", "-d", "1"]
            case .progressiveLossless: ["-p", "-d", "0"]
            case .losslessWithNoise: ["-d", "0", "-g", "3", "--photon_noise=ISO3200"]
            }
        }
    }

    /// What cjxl is asked to make, and the box it is decoded into.
    struct Picture: Sendable, CustomStringConvertible {
        let width: Int, height: Int, mode: Mode, alpha: Bool, box: Int
        var description: String { "\(width)x\(height) \(mode)\(alpha ? " alpha" : "") into \(box)" }
    }

    static let pictures = zip(Gen.int(in: 1...400), Gen.int(in: 1...400), Gen.int(in: 0...9), Gen.int(in: 1...300))
        .map { width, height, kind, box in
            Picture(width: width, height: height, mode: Mode.allCases[kind % 5], alpha: kind >= 5, box: box)
        }

    /// libjxl's memory as ct_jxl_decode.c estimates it from the header, computed here for an
    /// RGB picture with `extra` extra channels: 8 MiB, the bordered group buffers at the group
    /// size that makes them largest (4 bytes a sample of 6 + e channels) and the whole-image
    /// planes ((w + 80)·h·(7·(3 + e) + 8)).
    static func libraryEstimate(width: Int, height: Int, extraChannels extra: Int) -> Int {
        let groups = [128, 256, 512, 1024].map { size in
            ((width + size - 1) / size) * ((height + size - 1) / size) * (size + 64) * (size + 64)
        }.max()!
        return 8 << 20 + 4 * (6 + extra) * groups + (width + 80) * height * (7 * (3 + extra) + 8)
    }

    /// The bound ct_jxl_decode.c states: the estimate, the sparse filter's sums and column tables
    /// (8 bytes a sample of the thumbnail, 8 a source column), a strip (4 bytes a source column),
    /// the input window (64 KiB + 64), the thumbnail twice (8 bytes a pixel) and 64 KiB through
    /// libjxl's memory manager.
    static func statedBound(_ picture: Picture, thumbnail: Thumbnail) -> Int {
        let samples = thumbnail.hasAlpha ? 4 : 3, thumbnailPixels = thumbnail.width * thumbnail.height
        return libraryEstimate(width: picture.width, height: picture.height, extraChannels: thumbnail.hasAlpha ? 1 : 0)
            + 8 * samples * thumbnailPixels + 8 * picture.width + 4 * picture.width
            + 64 * 1024 + 64 + 8 * thumbnailPixels + 64 * 1024
    }

    /// A picture of the requested size, encoded by cjxl in the picture's mode.
    static func encode(_ picture: Picture, in directory: URL) throws -> String {
        let png = try StatedBoundCheck.patternPNG(width: picture.width, height: picture.height, alpha: picture.alpha,
                                                  in: directory)
        let output = directory.appendingPathComponent("picture.jxl").path
        try StatedBoundCheck.run(cjxl, [png.path, output, "--num_threads=0"] + picture.mode.arguments)
        return output
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: cjxl), "needs cjxl (libjxl-tools)"))
    func peakBytesStayWithinTheStatedBound() async throws {
        await propertyCheck(count: 16, input: Self.pictures) { picture in
            await StatedBoundCheck.check(picture, box: picture.box, encode: { try Self.encode(picture, in: $0) }) {
                Self.statedBound(picture, thumbnail: $1)
            }
        }
    }

    @Test func libjxlsMemoryIsEstimatedFromTheHeaderAndRefusedPastItsOwnLimit() async throws {
        let path = Fixtures.testImage(Self.photo)
        let header = try ThumbnailDecoder().readHeader(Fixtures.bytes(atPath: path))
        // The probe gives the estimate less its fixed 8 MiB: 61 MB for a 1024×683 picture.
        #expect(header.wholeImageBytes == Self.libraryEstimate(width: 1024, height: 683, extraChannels: 0) - 8 << 20)
        let refused = ThumbnailDecoder(limits: DecodingLimits(maxJPEGXLDecoderMemory: 32 << 20))
        #expect {
            try refused.decode(contentsOfFile: path)
        } throws: { error in
            guard case ThumbnailDecodingError.tooLarge(let message) = error else { return false }
            return message.contains("JPEG XL image of 1024x683") && message.contains("32 MiB")
                && message.contains("--max-jxl-decoder-memory")
        }
        // The general limit is not the one JPEG XL is held to: 1 MiB of it does not refuse the decode.
        let decoded = try await runBlocking {
            try ThumbnailDecoder(limits: DecodingLimits(maxDecoderMemory: 1 << 20)).decode(contentsOfFile: path)
        }
        #expect(decoded.width == 256 && decoded.height == 171)
        #expect(try #require(decoded.report?.peakDecodeBytes) >= header.wholeImageBytes + 8 << 20)
    }
}
