import Foundation
import TestSupport
import Testing

/// `scripts/test.sh`, which CI runs, stops without tmux instead of letting
/// the browse end-to-end test skip and the run pass.
@Suite struct TestScriptTests {
    @Test func withoutTmuxAndNoWayToInstallItTheTestScriptFails() async throws {
        let temporary = try TemporaryDirectory()
        let bin = temporary.path("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        // A PATH with what the script needs before its tmux check, no tmux,
        // and an apt-get that logs what it is asked and cannot install anything.
        for tool in ["bash", "dirname", "id"] {
            let path = try #require(["/usr/bin/\(tool)", "/bin/\(tool)"].first(where: FileManager.default.isExecutableFile))
            try FileManager.default.createSymbolicLink(atPath: "\(bin)/\(tool)", withDestinationPath: path)
        }
        let log = temporary.path("apt-get.log")
        try executable("#!/bin/sh\necho \"$*\" >> '\(log)'\n[ \"$1\" = update ] || exit 100\n", at: "\(bin)/apt-get")
        try executable("#!/bin/sh\nexec \"$@\"\n", at: "\(bin)/sudo")  // when the tests do not run as root

        let script = Fixtures.packageRoot.appendingPathComponent("scripts/test.sh").path
        let run = try await runBlocking {
            try ChildProcess.run([], executable: script, environment: ["PATH": bin], limits: .init(duration: .seconds(30)))
        }
        #expect(run.status == 1, "\(run.standardError)")
        #expect(run.standardError.contains("tmux is missing and could not be installed"), "\(run.standardError)")
        let asked = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(asked.contains("install") && asked.contains("tmux"), "it tried to install tmux: \(asked) \(run.standardError)")
        #expect(!run.standardError.contains("setup:"), "it stopped before setting up or building")
    }

    /// Writes an executable file through a close-on-exec descriptor: a child
    /// that other tests spawn meanwhile must not inherit it, or running the
    /// file fails with "Text file busy".
    private func executable(_ text: String, at path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        guard write(descriptor, bytes, bytes.count) == bytes.count else { throw POSIXError(.EIO) }
    }
}
