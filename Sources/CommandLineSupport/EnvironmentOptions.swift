import ArgumentParser
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A command's options given as environment variables, for a process a supervisor
/// or a container starts: `--cache-dir` as `THUMBNAILER_CACHE_DIR`, `--insecure-unsigned`
/// as `THUMBNAILER_INSECURE_UNSIGNED=1`. ArgumentParser reads no environment, so the
/// variables become arguments before parsing, and then are parsed and validated as
/// if typed. Give it the options from the command's own definitions (as
/// ArgumentParser describes them), so that every option it gains later has its variable too.
///
/// - A variable's name is the prefix, then the option's long name upper-cased with `-` as `_`.
/// - An option given on the command line ignores its variable.
/// - A flag's variable is `1`, `true` or `yes` to set it, `0`, `false`, `no` or empty to leave it.
/// - A repeatable option's variable is a comma-separated list.
package struct EnvironmentOptions {
    /// What each variable's name starts with.
    package let prefix: String
    private let variable: (String) -> String?

    /// Variables from this process's environment.
    package init(prefix: String) {
        self.init(prefix: prefix) { name in getenv(name).map { String(cString: $0) } }
    }

    /// Variables from `variable`, which answers a name with its value or `nil`.
    package init(prefix: String, variable: @escaping (String) -> String?) {
        self.prefix = prefix
        self.variable = variable
    }

    /// One long option of a command.
    package struct Option: Equatable, Sendable {
        /// Without the dashes: `cache-dir`.
        package var name: String
        /// The name of the flag that turns it off (`no-x` of `--x/--no-x`), if any.
        package var inverse: String?
        /// Its one-letter name (`s` of `-s`), if any.
        package var short: Character?
        /// An option takes a value; a flag does not.
        package var takesValue: Bool
        package var isRepeatable: Bool

        package init(name: String, inverse: String? = nil, short: Character? = nil, takesValue: Bool, isRepeatable: Bool = false) {
            self.name = name
            self.inverse = inverse
            self.short = short
            self.takesValue = takesValue
            self.isRepeatable = isRepeatable
        }
    }

    /// `arguments` (those after the command's name) with, before them, the arguments
    /// the environment gives for the `options` they do not give.
    /// - Throws: a `ValidationError` naming the variable when a flag's value is not a yes or a no.
    package func arguments(_ arguments: [String], options: [Option]) throws -> [String] {
        let named = arguments.prefix { $0 != "--" }.filter { $0.hasPrefix("-") }
        let given = Set(named.filter { $0.hasPrefix("--") }.map { String($0.dropFirst(2).prefix { $0 != "=" }) })
        let givenShort = Set(named.filter { !$0.hasPrefix("--") }.compactMap { $0.dropFirst().first })
        var added: [String] = []
        for option in options
        where !given.contains(option.name) && !(option.inverse.map(given.contains) ?? false) && !(option.short.map(givenShort.contains) ?? false) {
            let name = prefix + option.name.uppercased().replacing("-", with: "_")
            guard let value = variable(name) else { continue }
            if !option.takesValue {
                switch value.lowercased() {
                case "1", "true", "yes": added.append("--" + option.name)
                case "0", "false", "no", "": if let inverse = option.inverse { added.append("--" + inverse) }
                default: throw ValidationError("\(name) must be 1, true or yes, or 0, false or no, not \"\(value)\"")
                }
            } else {
                let values = option.isRepeatable ? value.split(separator: ",").map(String.init) : [value]
                for value in values { added += ["--" + option.name, value] }
            }
        }
        return added + arguments
    }
}
