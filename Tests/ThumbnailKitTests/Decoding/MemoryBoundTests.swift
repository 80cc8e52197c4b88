import Foundation
import Testing
import TestSupport
import ThumbnailKit

/// The point of the project: decoding a big image to a thumbnail never holds a
/// full-size bitmap. The decoder counts every byte it and libjpeg/libpng allocate.
@Suite(.serialized) struct MemoryBoundTests {
    static let mebibyte = 1 << 20

    @Test func a6000x4000BaselineJPEGDecodesTo256PixelsInAFewMebibytes() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("big.jpg").path
        let bytes = try ThumbnailEncoder(jpegQuality: 90).encode(
            rgba: LargeImage.photoLike(width: 6000, height: 4000), width: 6000, height: 4000, as: .jpeg)
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let thumbnail = try ThumbnailDecoder(size: .fit(256)).decode(contentsOfFile: path)

        #expect(thumbnail.width == 256 && thumbnail.height == 171)
        #expect(thumbnail.report.scaleNumerator == 1)
        // A full-size RGBA frame would be 96 MB; the bound is the 1/8-scale
        // pipeline plus the thumbnail.
        #expect(thumbnail.report.peakDecodeBytes < 3 * Self.mebibyte,
                "peak \(thumbnail.report.peakDecodeBytes) bytes")
    }

    @Test func a4000x3000PNGDecodesTo256PixelsInAFewMebibytes() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("big.png").path
        let bytes = try ThumbnailEncoder().encode(
            rgba: LargeImage.photoLike(width: 4000, height: 3000), width: 4000, height: 3000, as: .png)
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let thumbnail = try ThumbnailDecoder(size: .fit(256)).decode(contentsOfFile: path)

        #expect(thumbnail.width == 256 && thumbnail.height == 192)
        // A full-size RGBA frame would be 48 MB.
        #expect(thumbnail.report.peakDecodeBytes < 2 * Self.mebibyte,
                "peak \(thumbnail.report.peakDecodeBytes) bytes")
    }

    @Test func decodingAtFullSizeReportsTheFullFrame() throws {
        // The counter is real: the same PNG decoded at its own size needs the frame.
        let bytes = try ThumbnailEncoder().encode(
            rgba: LargeImage.photoLike(width: 1200, height: 800), width: 1200, height: 800, as: .png)

        let full = try ThumbnailDecoder(size: .original).decode(bytes)
        let small = try ThumbnailDecoder(size: .fit(128)).decode(bytes)

        #expect(full.report.peakDecodeBytes >= 1200 * 800 * 4)
        #expect(small.report.peakDecodeBytes < full.report.peakDecodeBytes / 10)
    }
}

