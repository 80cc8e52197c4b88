import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing
@testable import ThumbnailKit

/// Hostile headers are refused before allocation, with the limit they broke;
/// a decode cancelled while it runs stops at its next checkpoint.
@Suite struct LimitsAndCancellationTests {
    static let sixtyThousandSquare = ThumbnailDecodingError.tooLarge(
        "image is 60000x60000 (3600000000 pixels); the limit is 100000000 pixels")

    @Test(arguments: ["invalid/png-error-header-only-60000x60000.png", "invalid/jpeg-error-sof-60000x60000.jpg"])
    func aSixtyThousandPixelSquareHeaderIsRefusedAsTooLarge(name: String) throws {
        #expect(throws: Self.sixtyThousandSquare) { try ThumbnailDecoder().decode(contentsOfFile: Fixtures.testImage(name)) }
        #expect(throws: Self.sixtyThousandSquare) { try ThumbnailDecoder().readHeader(try Fixtures.bytes(ofTestImage: name)) }
    }

    @Test func aZlibBombIsRefusedByThePixelLimit() throws {
        let bomb = Fixtures.testImage("invalid/png-bomb-20000x20000.png")
        #expect(try Fixtures.bytes(atPath: bomb).count < 100_000)
        #expect(throws: ThumbnailDecodingError.tooLarge("image is 20000x20000 (400000000 pixels); the limit is 100000000 pixels")) {
            try ThumbnailDecoder().decode(contentsOfFile: bomb)
        }
    }

    @Test func widthHeightAndPixelLimitsAreConfigurable() throws {
        let file = Fixtures.testImage("png-rgb-8bit-67x43.png")
        let refusing: [(DecodingLimits, String)] = [
            (DecodingLimits(maxWidth: 66), "image is 67 px wide; the limit is 66"),
            (DecodingLimits(maxHeight: 42), "image is 43 px high; the limit is 42"),
            (DecodingLimits(maxPixels: 67 * 43 - 1), "image is 67x43 (2881 pixels); the limit is 2880 pixels"),
        ]
        for (limits, message) in refusing {
            #expect(throws: ThumbnailDecodingError.tooLarge(message), "\(limits)") {
                try ThumbnailDecoder(limits: limits).decode(contentsOfFile: file)
            }
        }
        let exact = DecodingLimits(maxWidth: 67, maxHeight: 43, maxPixels: 67 * 43)
        #expect(try ThumbnailDecoder(limits: exact).decode(contentsOfFile: file).width == 67)
    }

    /// libjpeg keeps all 64 coefficients of every block of a progressive file (2.4 MB here): past the
    /// limit they go to a temporary file, and the thumbnail is the one an unbounded decode makes.
    @Test func aProgressiveJPEGThatNeedsMoreWorkingMemoryThanAllowedSpillsItsCoefficients() throws {
        let photo = try #require(TestImagesManifest.entry(prefix: "photo-", containing: "progressive"))
        let tight = DecodingLimits(maxDecoderMemory: 1 << 20)
        let spilled = try ThumbnailDecoder(limits: tight, progressivePath: .skippingScans).decode(contentsOfFile: photo.path)
        let whole = try ThumbnailDecoder(limits: DecodingLimits(maxDecoderMemory: nil), progressivePath: .skippingScans)
            .decode(contentsOfFile: photo.path)
        #expect(spilled.maximumDifference(from: whole) == 0)
        let spilledPeak = try #require(spilled.report?.peakDecodeBytes), wholePeak = try #require(whole.report?.peakDecodeBytes)
        #expect(spilledPeak < (1 << 20) + 256 * 192 * 4, "peak \(spilledPeak) bytes")
        #expect(wholePeak > 2 * spilledPeak, "unbounded: \(wholePeak) bytes, spilled: \(spilledPeak) bytes")
        // The DC-only path keeps one per block: the same budget is plenty, as it is for a baseline JPEG, which streams.
        #expect(try ThumbnailDecoder(limits: tight).decode(contentsOfFile: photo.path).report?.jpegPath == .dcOnly)
        let baseline = try #require(TestImagesManifest.entry(prefix: "photo-", containing: "baseline"))
        #expect(try ThumbnailDecoder(limits: tight).decode(contentsOfFile: baseline.path).width == 256)
    }

    /// Under a budget the DC planes (144 KiB) exceed, the DC-only path leaves the file to libjpeg,
    /// whose windows do not fit either: refused, naming the bytes and the limit.
    @Test func aProgressiveJPEGWhoseWindowsDoNotFitIsRefusedNamingTheBytes() throws {
        let photo = try #require(TestImagesManifest.entry(prefix: "photo-", containing: "progressive"))
        do {
            let thumbnail = try ThumbnailDecoder(limits: DecodingLimits(maxDecoderMemory: 64 << 10)).decode(contentsOfFile: photo.path)
            Issue.record("decoded within 64 KiB: \(thumbnail)")
        } catch let ThumbnailDecodingError.tooLarge(message) {
            #expect(message.hasPrefix("JPEG: decoding needs "), "\(message)")
            #expect(message.contains(" bytes (0.1 MiB) of working memory, over the decoder memory limit of 65536 bytes"),
                    "\(message)")
        }
    }

    /// Counts a decode's checkpoints; at the chosen one, runs an action on
    /// another thread while the decode waits there, just before it reads its flag.
    final class Checkpoints: Sendable {
        private let state = Mutex((passed: 0, action: (@Sendable () -> Void)?.none))
        private let actingAt: Int?

        init(actingAt: Int? = nil) {
            self.actingAt = actingAt
        }

        /// Checkpoints passed so far.
        var passed: Int { state.withLock { $0.passed } }

        /// What to do at the chosen checkpoint.
        func act(_ action: @escaping @Sendable () -> Void) {
            state.withLock { $0.action = action }
        }

        /// The decode's checkpoint observer.
        @Sendable func arrive() {
            let action = state.withLock { state in
                state.passed += 1
                return state.passed == actingAt ? state.action : nil
            }
            guard let action else { return }
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                action()
                done.signal()
            }
            done.wait()
        }
    }

    /// A PNG row by row and pass by pass (Adam7), a baseline JPEG's scanline
    /// batches, a progressive JPEG's DC scans (the DC-only path at 1/8) row of blocks by row,
    /// a lossy WebP's slices of data (the 100 KB file is fed to libwebp 16 KiB at a time),
    /// a GIF frame row by row and pass by pass (interlaced), an AVIF's and a HEIC's reads and
    /// YUV rows, and a JPEG XL's chunks of input.
    static let photos = [
        "photo-sunset-rgba-vignette-1024x683.png", "photo-life-adam7-rgb-640x480.png",
        "photo-aitzgorri-baseline-3000x1998.jpg", "photo-picosdeeuropa-progressive-2048x1536.jpg",
        "webp-lossy-gradient-6000x4000.webp", "gif-blocks-1200x800.gif", "gif-blocks-interlaced-1200x800.gif",
        "avif-photo-420-1024x683.avif", "heic-photo-1024x683.heic", "jxl-photo-lossy-1024x683.jxl",
    ]

    @Test(arguments: photos)
    func cancellingWhileTheDecodeRunsStopsItAtTheNextCheckpoint(photo: String) async throws {
        let path = Fixtures.testImage(photo)
        let whole = Checkpoints()
        let completed = try await runBlocking {
            try ThumbnailDecoder().decode(contentsOfFile: path, cancellation: DecodeCancellation(checkpoint: whole.arrive))
        }
        #expect(completed.width == 256)
        try #require(whole.passed > 4, "a whole decode passes many checkpoints")

        let checkpoints = Checkpoints(actingAt: 3)
        let cancellation = DecodeCancellation(checkpoint: checkpoints.arrive)
        checkpoints.act { [weak cancellation] in cancellation?.cancel() }
        let outcome = try await runBlocking {
            Result { try ThumbnailDecoder().decode(contentsOfFile: path, cancellation: cancellation) }
        }
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(checkpoints.passed == 3, "stopped where it was cancelled, of \(whole.passed) checkpoints")
    }

    /// The task to cancel, known just after it starts.
    final class TaskHandle: Sendable {
        private let task = Mutex<Task<Thumbnail, any Error>?>(nil)

        func set(_ task: Task<Thumbnail, any Error>) { self.task.withLock { $0 = task } }

        /// Cancels the task, waiting for the handle first if the task outran it.
        func cancel() {
            while true {
                if let task = task.withLock({ $0 }) { return task.cancel() }
                usleep(100)
            }
        }
    }

    @Test func cancellingTheTaskWhileItDecodesStopsTheDecode() async throws {
        let photo = Fixtures.testImage("photo-sunset-rgba-vignette-1024x683.png")
        let checkpoints = Checkpoints(actingAt: 3)
        let handle = TaskHandle()
        checkpoints.act { handle.cancel() }
        let cancellation = DecodeCancellation(checkpoint: checkpoints.arrive)
        let task = Task { try await ThumbnailDecoder().decode(contentsOfFile: photo, cancellingWith: cancellation) }
        handle.set(task)

        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(checkpoints.passed == 3)
    }
}
