import ArgumentParser
import CommandLineSupport
import FoundationEssentials

extension ParsableCommand {
    /// This command's long options, from ArgumentParser's own description of them
    /// (`--experimental-dump-help`'s JSON), for ``EnvironmentOptions``: every option
    /// the command has, today's and tomorrow's, but `--help` and `--version`.
    /// FoundationEssentials is loaded by this executable anyway (Hummingbird links it).
    static var environmentOptions: [EnvironmentOptions.Option] {
        guard let help = try? JSONDecoder().decode(DumpedHelp.self, from: Data(_dumpHelp().utf8)) else { return [] }
        return (help.command.arguments ?? []).compactMap { argument in
            guard argument.kind == "option" || argument.kind == "flag" else { return nil }
            let names = argument.names ?? []
            let long = names.filter { $0.kind == "long" }.map(\.name)
            guard let name = long.first, name != "help", name != "version" else { return nil }
            return EnvironmentOptions.Option(name: name, inverse: long.first { $0 == "no-" + name },
                                             short: names.first { $0.kind == "short" }?.name.first,
                                             takesValue: argument.kind == "option", isRepeatable: argument.isRepeating)
        }
    }
}

/// The part of ArgumentParser's `--experimental-dump-help` (ToolInfoV0) that names the options.
private struct DumpedHelp: Decodable {
    struct Command: Decodable {
        var arguments: [Argument]?
    }

    struct Argument: Decodable {
        var kind: String
        var isRepeating: Bool
        var names: [Name]?
    }

    struct Name: Decodable {
        var kind: String
        var name: String
    }

    var command: Command
}
