import ArgumentParser
import CommandLineSupport
import Testing

/// `THUMBNAILER_*` variables as arguments, before the command line's own.
@Suite struct EnvironmentOptionsTests {
    static let options = [
        EnvironmentOptions.Option(name: "size", short: "s", takesValue: true, isRepeatable: true),
        EnvironmentOptions.Option(name: "cache-dir", takesValue: true),
        EnvironmentOptions.Option(name: "insecure-unsigned", takesValue: false),
        EnvironmentOptions.Option(name: "colour", inverse: "no-colour", takesValue: false),
    ]

    static func arguments(_ given: [String], _ variables: [String: String]) throws -> [String] {
        try EnvironmentOptions(prefix: "T_") { variables[$0] }.arguments(given, options: options)
    }

    @Test func turnsEachSetVariableIntoItsOption() throws {
        #expect(try Self.arguments(["feed"], [:]) == ["feed"])
        #expect(try Self.arguments(["feed"], ["T_CACHE_DIR": "/tmp/a,b", "T_INSECURE_UNSIGNED": "yes", "T_SIZE": "256,fill:320x200"])
                == ["--size", "256", "--size", "fill:320x200", "--cache-dir", "/tmp/a,b", "--insecure-unsigned", "feed"])
        #expect(try Self.arguments([], ["T_INSECURE_UNSIGNED": "0", "T_COLOUR": "false", "T_FEED": "x"]) == ["--no-colour"])
    }

    @Test func leavesAnOptionTheCommandLineGives() throws {
        #expect(try Self.arguments(["--cache-dir=/b", "-s", "64"], ["T_CACHE_DIR": "/a", "T_SIZE": "128"]) == ["--cache-dir=/b", "-s", "64"])
        #expect(try Self.arguments(["--no-colour"], ["T_COLOUR": "1"]) == ["--no-colour"])
        #expect(try Self.arguments(["--", "--cache-dir"], ["T_CACHE_DIR": "/a"]) == ["--cache-dir", "/a", "--", "--cache-dir"])
    }

    @Test func refusesAFlagThatIsNoYesOrNo() {
        #expect(throws: ValidationError.self) { try Self.arguments([], ["T_INSECURE_UNSIGNED": "on"]) }
    }
}
