import Foundation
import TestSupport
import Testing
import ThumbnailKit
import ThumbnailServer

/// Every command of the README's ```sh blocks is run, as written, with the built `thumbnailer`
/// on PATH, in a directory holding the files the commands name (`photo.jpg`, `photo.png`, a
/// `TestImages` link), `~` a home of its own, and `https://example.com/` a loopback origin:
/// `warm`, `thumb` and `cache` to completion; `serve` until it answers (a signed thumbnail, the
/// web list with `--feed`), then SIGTERM; `browse` in tmux until it shows the feed, then `q`.
/// The scripts are CI's own steps (`.ci/run` runs `scripts/test.sh`, which runs
/// `scripts/install.sh` and `scripts/demo.sh`). A command this test cannot run fails it: a README command nobody runs
/// is one that may have stopped working.
@Suite final class ReadmeCommandsTests: Sendable {
    let temporary: TemporaryDirectory
    let origin: TestHTTPServer

    init() throws {
        temporary = try TemporaryDirectory()
        origin = try TestHTTPServer()
    }

    deinit { origin.stop() }

    /// The README's shell commands: one per line of each ```sh block, comments cut, `export`s kept.
    static func commands() throws -> [String] {
        let readme = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        var commands: [String] = []
        var inBlock = false
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if !inBlock, line == "```sh" {
                inBlock = true
            } else if inBlock, line == "```" {
                inBlock = false
            } else if inBlock {
                let command = (line.range(of: "  #").map { line[..<$0.lowerBound] } ?? line).trimmingCharacters(in: .whitespaces)
                if !command.isEmpty { commands.append(command) }
            }
        }
        return commands
    }

    @Test(.enabled(if: Tmux.isAvailable, "browse's command runs in tmux"), .timeLimit(.minutes(5)))
    func everyShellCommandOfTheReadmeRunsAsWritten() async throws {
        let commands = try Self.commands()
        #expect(commands.count >= 8, "\(commands)")
        let sandbox = try makeSandbox()
        var environment = ["HOME": temporary.path("home"), "PATH": sandbox.path]
        for command in commands {
            let words = command.split(separator: " ").map(String.init)
            switch words.first {
            case "scripts/test.sh":
                let ci = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent(".ci/run"), encoding: .utf8)
                #expect(ci.contains("scripts/test.sh"), "CI runs the test command")
            case "scripts/install.sh":
                // CI installs the debug build it tests, into a scratch prefix that CommandInstallationTests checks.
                let test = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("scripts/test.sh"), encoding: .utf8)
                #expect(test.contains("\nscripts/install.sh "), "scripts/test.sh runs the install script")
            case "scripts/demo.sh":
                let test = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("scripts/test.sh"), encoding: .utf8)
                #expect(test.contains("\nscripts/demo.sh"), "scripts/test.sh runs the demo")
            case "export":
                environment.merge(try exported(command, environment: environment)) { $1 }
            case "thumbnailer":
                try await run(command, words: words, in: sandbox, environment: environment)
            default:
                Issue.record("a README command this test does not know how to run: \(command)")
            }
        }
    }

    /// Where the commands run: a folder with the files they name, and a PATH whose first folder
    /// holds `thumbnailer`.
    private func makeSandbox() throws -> (directory: String, path: String) {
        let directory = temporary.path("work")
        let files = FileManager.default
        try files.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try files.createDirectory(atPath: temporary.path("home"), withIntermediateDirectories: true)
        try files.createSymbolicLink(atPath: "\(directory)/TestImages", withDestinationPath: Fixtures.testImage("."))
        for (name, source) in [("photo.jpg", "photo-aitzgorri-baseline-3000x1998.jpg"), ("photo.png", "photo-sunset-rgba-vignette-1024x683.png"),
                               ("beach.jpg", "photo-friends-portrait-1000x1502.jpg")] {
            try files.copyItem(atPath: Fixtures.testImage(source), toPath: "\(directory)/\(name)")
        }
        let bin = URL(fileURLWithPath: ChildProcess.thumbnailer).deletingLastPathComponent().path
        return (directory, "\(bin):/usr/bin:/bin")
    }

    /// The variables an `export` line sets, as bash evaluates it.
    private func exported(_ command: String, environment: [String: String]) throws -> [String: String] {
        // The words that assign: NAME=…, not the words of a command substitution.
        let names = command.dropFirst("export ".count).split(separator: " ").compactMap { word -> Substring? in
            guard let name = word.split(separator: "=", maxSplits: 1).first, word.contains("="),
                  name.allSatisfy({ $0 == "_" || $0.isLetter || $0.isNumber }) else { return nil }
            return name
        }
        let script = command + "\n" + names.map { "echo \"\($0)=$\($0)\"" }.joined(separator: "\n")
        let outcome = try ChildProcess.run(["-c", script], executable: "/bin/bash", environment: environment,
                                           limits: .init(duration: .seconds(30)))
        try #require(outcome.status == 0, "\(command): \(outcome.summary)")
        return Dictionary(outcome.standardOutput.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            return parts.count == 2 && !parts[1].isEmpty ? (parts[0], parts[1]) : nil
        }, uniquingKeysWith: { $1 })
    }

    private func run(_ command: String, words: [String], in sandbox: (directory: String, path: String),
                     environment: [String: String]) async throws {
        let arguments = try rewritten(Array(words.dropFirst()))
        switch arguments.first {
        case "serve": try await serve(command, arguments, in: sandbox, environment: environment)
        case "browse": try await browse(command, arguments, in: sandbox, environment: environment)
        default:
            let outcome = try await runBlocking {
                try ChildProcess.run(["-c", "cd '\(sandbox.directory)' && exec thumbnailer " + arguments.joined(separator: " ")],
                                     executable: "/bin/sh", environment: environment, limits: .init(duration: .seconds(120)))
            }
            #expect(outcome.status == 0, "\(command): \(outcome.summary)")
            try expectOutputs(of: arguments, in: sandbox.directory, command: command)
        }
    }

    /// The README's arguments with `https://example.com/` served by the loopback origin (which
    /// lists two test photos in `feed.json`) and `~` the sandbox's home.
    private func rewritten(_ arguments: [String]) throws -> [String] {
        let images = ["photo-aitzgorri-baseline-3000x1998.jpg", "photo-friends-portrait-1000x1502.jpg"]
        for image in images { origin.route("/images/\(image)", .init(body: try Fixtures.bytes(ofTestImage: image))) }
        origin.route("/feed.json", .init(body: JSONFeed.listing(images.map { origin.url("/images/\($0)") })))
        return arguments.map { argument in
            argument.replacingOccurrences(of: "https://example.com/", with: origin.url("/"))
                .replacingOccurrences(of: "~/", with: temporary.path("home") + "/")
        }
    }

    /// What `thumb` was asked to write is there, at the size asked.
    private func expectOutputs(of arguments: [String], in directory: String, command: String) throws {
        guard arguments.first == "thumb" else { return }
        let expected: [(file: String, width: Int?, height: Int?)] = switch arguments.last {
        case "photo.jpg": [("photo_thumb.jpg", nil, nil)]
        case "thumbs/": [("thumbs/photo.jpg", nil, nil), ("thumbs/beach.jpg", nil, nil)]
        case "sq.png": [("sq.png", 256, 256)]
        default: []
        }
        #expect(!expected.isEmpty, "no expected output known for \(command)")
        for output in expected {
            let path = "\(directory)/\(output.file)"
            let header = try ThumbnailDecoder().readHeader(try Fixtures.bytes(atPath: path))
            #expect(header.width <= 320 && header.height <= 256, "\(command): \(output.file) is \(header.width)×\(header.height)")
            if let width = output.width, let height = output.height {
                #expect((header.width, header.height) == (width, height), "\(command): \(output.file)")
            }
        }
    }

    /// `serve` as written but on a free port: it answers `/readyz`, a thumbnail at a URL signed with
    /// the exported key (or unsigned, `_`, with `--insecure-unsigned`), the web list with `--feed`;
    /// SIGTERM ends it with status 0.
    private func serve(_ command: String, _ arguments: [String], in sandbox: (directory: String, path: String),
                       environment: [String: String]) async throws {
        // A free port instead of the README's, and the feed's relative path made absolute (the
        // server does not run in the sandbox): the rest as written.
        var options = Array(arguments.dropFirst()).map { $0.hasPrefix("TestImages/") ? "\(sandbox.directory)/\($0)" : $0 }
        if let port = options.firstIndex(of: "--port") { options.removeSubrange(port...port + 1) }
        let server = try await ServeProcess.start(options + ["--private-addresses"], environment: environment)
        defer { _ = server.process.kill() }
        #expect(try TestHTTPClient.request(port: server.port, path: "/readyz").status == 200, "\(command)")
        let signing: SigningPolicy = if let key = environment["THUMBNAILER_KEY"], let salt = environment["THUMBNAILER_SALT"],
                                        !options.contains("--insecure-unsigned") {
            .signed(try URLSigner(hexKey: key, hexSalt: salt))
        } else {
            .unsigned
        }
        let path = ThumbnailURL(size: .fit(128), mode: .fit, source: origin.url("/images/photo-friends-portrait-1000x1502.jpg"), format: .jpeg)
            .path(signing: signing)
        let thumbnail = try TestHTTPClient.request(port: server.port, path: path)
        #expect(thumbnail.status == 200 && thumbnail.headers["content-type"] == "image/jpeg", "\(command): \(thumbnail.status)")
        if options.contains("--feed") {
            #expect(try TestHTTPClient.request(port: server.port, path: "/").status == 200, "\(command)")
            let feed = try TestHTTPClient.request(port: server.port, path: "/feed.json")
            #expect(feed.status == 200 && String(decoding: feed.body, as: UTF8.self).contains("\"items\""), "\(command)")
        }
        server.process.signal(SIGTERM)
        let ended = try await runBlocking { server.process.wait(within: .init(duration: .seconds(30))) }
        #expect(ended.status == 0, "\(command): \(ended.summary)")
    }

    /// `browse` in tmux: the feed's first title and its thumbnail on screen, then `q` ends it with status 0.
    private func browse(_ command: String, _ arguments: [String], in sandbox: (directory: String, path: String),
                        environment: [String: String]) async throws {
        let tmux = Tmux(socket: "thumbnailer-readme-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        defer { tmux.killServer() }
        let exitFile = temporary.path("browse-exit")
        let variables = environment.map { "\($0.key)='\($0.value)'" }.sorted().joined(separator: " ")
        try tmux.start("cd '\(sandbox.directory)' && env \(variables) COLORTERM=truecolor thumbnailer \(arguments.joined(separator: " ")); "
                       + "echo \"exit $?\" > '\(exitFile)'; sleep 60", columns: 120, rows: 40)
        let first = BrowseCommandTests.titles.first ?? ""
        let shown = try await eventually { tmux.capture(colours: true).split(separator: "\n").contains { $0.contains(first) && $0.contains("\u{1B}[38;2;") } }
        #expect(shown, "\(command): \(tmux.capture(colours: false))")
        tmux.send("q")
        #expect(try await eventually { FileManager.default.fileExists(atPath: exitFile) }, "\(command) did not end on q")
        #expect((try? String(contentsOfFile: exitFile, encoding: .utf8)) == "exit 0\n", "\(command)")
    }
}
