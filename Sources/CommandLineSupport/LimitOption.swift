import ArgumentParser

/// The rule for size and count limits on the command line: a limit is a
/// limit. `0` is a usage error (exit 64), never "no limit"; an option that
/// may be lifted takes the word `unlimited` (see ``Liftable``), and says so in its help.
package enum LimitOption {
    /// Throws a usage error naming `option` unless `value` is at least 1.
    /// - Parameters:
    ///   - unit: what one is, for the message (`"byte"`, `"second"`).
    ///   - liftable: whether the option takes `unlimited` (the message then says so).
    package static func validate(_ value: Int, _ option: String, unit: String? = nil, liftable: Bool = false) throws {
        guard value < 1 else { return }
        let least = unit.map { "1 \($0)" } ?? "1"
        let lift = liftable ? "; say unlimited for no limit" : ""
        throw ValidationError("\(option) must be at least \(least), not \(value): 0 is not \"no limit\"\(lift)")
    }
}

/// A limit that may be lifted: a value, or the word `unlimited`.
package enum Liftable<Value: ExpressibleByArgument & CustomStringConvertible & Sendable>: ExpressibleByArgument, CustomStringConvertible, Sendable {
    case limit(Value)
    case unlimited

    package init?(argument: String) {
        if argument == "unlimited" {
            self = .unlimited
        } else if let value = Value(argument: argument) {
            self = .limit(value)
        } else {
            return nil
        }
    }

    /// The value, or `nil` when unlimited.
    package var value: Value? {
        if case let .limit(value) = self { return value }
        return nil
    }

    package var description: String { value?.description ?? "unlimited" }
}
