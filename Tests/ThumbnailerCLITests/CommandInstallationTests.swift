import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// The command where shells look for it: `--version` from the one version constant, completion
/// scripts that bash loads and that complete for real, and what `scripts/install.sh` installed
/// (`scripts/test.sh` installs this debug build into a scratch prefix and names it in
/// `THUMBNAILER_INSTALLED_PREFIX`; without it, the installed-files test skips, saying so).
@Suite struct CommandInstallationTests {
    static let installedPrefix = ProcessInfo.processInfo.environment["THUMBNAILER_INSTALLED_PREFIX"]
    static let needsInstallation = Testing.ConditionTrait.enabled(
        if: installedPrefix != nil, "scripts/test.sh installs the command (scripts/install.sh) and sets THUMBNAILER_INSTALLED_PREFIX")

    @Test func theVersionIsTheConstantAndTheChangelogsLatestRelease() async throws {
        let run = try await runBlocking { try ChildProcess.run(["--version"]) }
        #expect(run.status == 0 && run.standardOutput == ThumbnailerVersion.current + "\n", "\(run.summary)")
        let changelog = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let released = changelog.split(separator: "\n").first { $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]") }
        #expect(released?.hasPrefix("## [\(ThumbnailerVersion.current)] - ") == true, "\(released ?? "no release section")")
    }

    /// bash sources the script, registers it, and completing `thumbnailer wa` offers `warm`, and
    /// `thumbnailer warm --sh` offers `--shard` and `--shard-count`.
    @Test func bashLoadsTheCompletionScriptAndItCompletesCommandsAndOptions() async throws {
        let temporary = try TemporaryDirectory()
        let script = temporary.path("thumbnailer.bash")
        let generated = try await runBlocking { try ChildProcess.run(["--generate-completion-script", "bash"]) }
        try #require(generated.status == 0, "\(generated.summary)")
        try generated.standardOutput.write(toFile: script, atomically: true, encoding: .utf8)
        let outcome = try await runBlocking {
            try ChildProcess.run(["--norc", "--noprofile", "-c", Self.completing(script: script)], executable: "/bin/bash",
                                 environment: ["PATH": URL(fileURLWithPath: ChildProcess.thumbnailer).deletingLastPathComponent().path
                                     + ":/usr/bin:/bin"],
                                 limits: .init(duration: .seconds(60)))
        }
        let lines = outcome.standardOutput.split(separator: "\n").map(String.init)
        #expect(outcome.status == 0, "\(outcome.summary)")
        #expect(lines.first?.hasPrefix("complete ") == true && lines.first?.hasSuffix(" thumbnailer") == true, "\(lines)")
        #expect(lines.contains("command: warm"), "\(lines)")
        #expect(lines.contains("option: --shard") && lines.contains("option: --shard-count"), "\(lines)")
    }

    @Test(needsInstallation) func theInstalledManPageRendersAndTheCompletionsAreInPlace() async throws {
        let prefix = try #require(Self.installedPrefix)
        let page = "\(prefix)/share/man/man1/thumbnailer.1"
        let rendered = try await runBlocking {
            try ChildProcess.run(["-c", "MANWIDTH=100 man --warnings -l '\(page)' | col -b"], executable: "/bin/sh",
                                 limits: .init(duration: .seconds(60)))
        }
        #expect(rendered.status == 0 && rendered.standardError.isEmpty, "\(rendered.summary)")
        for heading in ["NAME", "SYNOPSIS", "DESCRIPTION"] {
            #expect(rendered.standardOutput.contains(heading), "\(heading) in \(rendered.standardOutput.prefix(400))")
        }
        // Every subcommand is in the page, with an option of its own.
        for text in ["warm", "serve", "browse", "thumb", "--shard-count", "--max-renders"] {
            #expect(rendered.standardOutput.contains(text), "\(text) missing from the man page")
        }
        let installed = try await runBlocking { try ChildProcess.run(["--version"], executable: "\(prefix)/bin/thumbnailer") }
        #expect(installed.standardOutput == ThumbnailerVersion.current + "\n", "\(installed.summary)")
        for completion in ["share/bash-completion/completions/thumbnailer", "share/zsh/site-functions/_thumbnailer",
                           "share/fish/vendor_completions.d/thumbnailer.fish"] {
            let text = try String(contentsOfFile: "\(prefix)/\(completion)", encoding: .utf8)
            #expect(text.contains("thumbnailer") && text.contains("warm"), "\(completion)")
        }
    }

    /// A bash program that loads `script`, prints how `thumbnailer` completes, then the words offered
    /// after `thumbnailer wa` and after `thumbnailer warm --sh`, each as the completion function leaves them.
    private static func completing(script: String) -> String {
        """
        source '\(script)'
        complete -p thumbnailer
        function offered() {
            local kind=$1; shift
            COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
            local function=$(complete -p thumbnailer | sed -E 's/.* -F ([^ ]+) .*/\\1/')
            "$function" thumbnailer "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            for word in "${COMPREPLY[@]}"; do echo "$kind: $word"; done
        }
        offered command thumbnailer wa
        offered option thumbnailer warm --sh
        """
    }
}
