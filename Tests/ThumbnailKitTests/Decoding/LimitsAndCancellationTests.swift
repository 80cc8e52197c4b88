import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// Hostile headers are refused before allocation; a decode stops when cancelled.
@Suite struct LimitsAndCancellationTests {
    @Test func aSixtyThousandPixelSquareHeaderIsRefusedAsTooLarge() throws {
        for name in ["invalid/png-error-header-only-60000x60000.png", "invalid/jpeg-error-sof-60000x60000.jpg"] {
            #expect(throws: ThumbnailDecodingError.self) { try ThumbnailDecoder().decode(contentsOfFile: Fixtures.testImage(name)) }
            do {
                _ = try ThumbnailDecoder().readHeader(try Fixtures.bytes(ofTestImage: name))
                Issue.record("\(name): header read without complaint")
            } catch let error as ThumbnailDecodingError {
                #expect(error.kind == "tooLarge", "\(name): \(error)")
                #expect(error.message.contains("60000"))
            }
        }
    }

    @Test func aZlibBombIsRefusedByThePixelLimit() throws {
        let bomb = Fixtures.testImage("invalid/png-bomb-20000x20000.png")
        #expect(try Fixtures.bytes(atPath: bomb).count < 100_000)
        #expect { try ThumbnailDecoder().decode(contentsOfFile: bomb) } throws: { error in
            (error as? ThumbnailDecodingError)?.kind == "tooLarge"
        }
    }

    @Test func widthHeightAndPixelLimitsAreConfigurable() throws {
        let file = Fixtures.testImage("png-rgb-8bit-67x43.png")
        let refusing = [
            DecodingLimits(maxWidth: 66), DecodingLimits(maxHeight: 42), DecodingLimits(maxPixels: 67 * 43 - 1),
        ]
        for limits in refusing {
            #expect(throws: ThumbnailDecodingError.self, "\(limits)") {
                try ThumbnailDecoder(limits: limits).decode(contentsOfFile: file)
            }
        }
        let exact = DecodingLimits(maxWidth: 67, maxHeight: 43, maxPixels: 67 * 43)
        #expect(try ThumbnailDecoder(limits: exact).decode(contentsOfFile: file).width == 67)
    }

    @Test func aProgressiveJPEGThatNeedsMoreWorkingMemoryThanAllowedIsRefused() throws {
        let photo = try #require(TestImagesManifest.entry(prefix: "photo-", containing: "progressive"))
        let tight = DecodingLimits(maxDecoderMemory: 1 << 20)
        #expect { try ThumbnailDecoder(limits: tight).decode(contentsOfFile: photo.path) } throws: { error in
            (error as? ThumbnailDecodingError)?.kind == "tooLarge"
        }
        // A baseline JPEG streams: the same budget is plenty.
        let baseline = try #require(TestImagesManifest.entry(prefix: "photo-", containing: "baseline"))
        #expect(try ThumbnailDecoder(limits: tight).decode(contentsOfFile: baseline.path).width == 256)
    }

    @Test func aCancelledFlagStopsTheDecodeWithCancellationError() throws {
        let cancellation = DecodeCancellation()
        cancellation.cancel()
        let photo = try #require(TestImagesManifest.entry(prefix: "photo-", containing: "baseline"))
        #expect(throws: CancellationError.self) {
            try ThumbnailDecoder().decode(contentsOfFile: photo.path, cancellation: cancellation)
        }
        #expect(throws: CancellationError.self) {
            try ThumbnailDecoder().decode(try Fixtures.bytes(atPath: photo.path), cancellation: cancellation)
        }
    }

    @Test func cancellingTheTaskCancelsTheDecode() async throws {
        let photo = try #require(TestImagesManifest.entry(prefix: "photo-", containing: "progressive"))
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await ThumbnailDecoder().decode(contentsOfFile: photo.path)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
