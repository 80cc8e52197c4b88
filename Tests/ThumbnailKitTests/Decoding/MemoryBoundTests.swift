import Foundation
import Testing
import TestSupport
import ThumbnailKit

/// The point of the project: decoding a big image to a thumbnail never holds a
/// full-size bitmap. The decoder counts every byte it and libjpeg/libpng allocate.
@Suite(.serialized) struct MemoryBoundTests {
    static let mebibyte = 1 << 20

    /// Encodes a photo-like image of this size and decodes it back from a file to 256 px.
    static func thumbnailOfLargeImage(width: Int, height: Int, as format: ImageFormat) async throws -> Thumbnail {
        try await runBlocking {
            let directory = try Fixtures.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("big").path
            let bytes = try ThumbnailEncoder(jpegQuality: 90).encode(
                rgba: LargeImage.photoLike(width: width, height: height), width: width, height: height, as: format)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return try ThumbnailDecoder(size: .fit(256)).decode(contentsOfFile: path)
        }
    }

    @Test func a6000x4000BaselineJPEGDecodesTo256PixelsInAFewMebibytes() async throws {
        let thumbnail = try await Self.thumbnailOfLargeImage(width: 6000, height: 4000, as: .jpeg)

        #expect(thumbnail.width == 256 && thumbnail.height == 171)
        let report = try #require(thumbnail.report)
        #expect(report.scaleNumerator == 1)
        // A full-size RGBA frame would be 96 MB; the bound is the 1/8-scale
        // pipeline plus the thumbnail.
        #expect(report.peakDecodeBytes < 3 * Self.mebibyte, "peak \(report.peakDecodeBytes) bytes")
    }

    @Test func a4000x3000PNGDecodesTo256PixelsInAFewMebibytes() async throws {
        let thumbnail = try await Self.thumbnailOfLargeImage(width: 4000, height: 3000, as: .png)

        #expect(thumbnail.width == 256 && thumbnail.height == 192)
        // A full-size RGBA frame would be 48 MB.
        let report = try #require(thumbnail.report)
        #expect(report.peakDecodeBytes < 2 * Self.mebibyte, "peak \(report.peakDecodeBytes) bytes")
    }

    @Test func decodingAtFullSizeReportsTheFullFrame() async throws {
        // The counter is real: the same PNG decoded at its own size needs the frame.
        let (full, small) = try await runBlocking {
            let bytes = try ThumbnailEncoder().encode(
                rgba: LargeImage.photoLike(width: 1200, height: 800), width: 1200, height: 800, as: .png)
            return (try ThumbnailDecoder(size: .original).decode(bytes), try ThumbnailDecoder(size: .fit(128)).decode(bytes))
        }

        let fullPeak = try #require(full.report?.peakDecodeBytes), smallPeak = try #require(small.report?.peakDecodeBytes)
        #expect(fullPeak >= 1200 * 800 * 4)
        #expect(smallPeak < fullPeak / 10)
    }
}

