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
        let asked = try String(contentsOfFile: log, encoding: .utf8)
        #expect(asked.contains("install") && asked.contains("tmux"), "it tried to install tmux: \(asked)")
        #expect(!run.standardError.contains("setup:"), "it stopped before setting up or building")
    }

    private func executable(_ text: String, at path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
    }
}
