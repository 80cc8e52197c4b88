import Foundation
import TestSupport
import Testing

/// The C decode module built with AddressSanitizer and UBSan, as `scripts/fuzz.sh` builds it
/// for fuzzing, decodes every input a fuzzer once found a defect with (`scripts/fuzz/regressions/`),
/// every test image and, when they are beside the checkout, the shared corpora, without a report:
/// `scripts/fuzz.sh --replay`.
@Suite struct SanitizedDecoderTests {
    /// Whether a clang is on the `PATH` (the Swift toolchain's ships libFuzzer and the sanitizers).
    static let hasClang = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .contains { FileManager.default.isExecutableFile(atPath: "\($0)/clang") }

    @Test(.enabled(if: hasClang, "the sanitized harness is built with clang, and none is on the PATH"))
    func theDecodeModuleUnderSanitizersDecodesEveryFindingAndTestImage() async throws {
        let regressions = try FileManager.default.contentsOfDirectory(
            atPath: Fixtures.packageRoot.appendingPathComponent("scripts/fuzz/regressions").path)
        #expect(regressions.contains("heic-empty-read-into-no-buffer.heic"))
        let script = Fixtures.packageRoot.appendingPathComponent("scripts/fuzz.sh").path
        let replay = try await runBlocking {
            try ChildProcess.run(["--replay"], executable: script, limits: .init(duration: .seconds(600)))
        }
        #expect(replay.status == 0, "\(replay.summary)")
        let replayed = replay.standardError.split(separator: "\n")
            .first { $0.hasPrefix("fuzz: replayed without a report: ") }
            .flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
        #expect(replayed > regressions.count + 150, "\(replay.standardError)")
    }
}
