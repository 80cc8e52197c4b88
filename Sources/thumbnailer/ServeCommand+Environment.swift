import CommandLineSupport

extension ServeCommand {
    /// `arguments` (the whole command line but the program's name), with `serve`'s
    /// options that the command line leaves out taken from `THUMBNAILER_*` variables
    /// (``EnvironmentOptions``); any other command's arguments as they are.
    static func withEnvironmentOptions(_ arguments: [String]) throws -> [String] {
        guard arguments.first == configuration.commandName else { return arguments }
        return [arguments[0]] + (try EnvironmentOptions(prefix: "THUMBNAILER_").arguments(Array(arguments.dropFirst()), options: environmentOptions))
    }
}
