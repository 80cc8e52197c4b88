import ThumbnailTerminal

/// One JSON object on one line (strings, numbers, booleans, string arrays, arrays of objects),
/// keys in the order they were added.
///
/// The command line deliberately links no Foundation: FoundationEssentials
/// alone added 1.9 ms of start-up CPU and about 4 MiB of RSS to every
/// `thumbnailer thumb` process (measured), and flat records of strings and
/// numbers need nothing more than correct string escaping.
package struct JSONLine: Sendable {
    package init() {}

    private var members: [String] = []

    package mutating func add(_ key: String, _ value: String?) {
        guard let value else { return }
        members.append("\(Self.quoted(key)):\(Self.quoted(value))")
    }

    package mutating func add(_ key: String, _ value: Int?) {
        guard let value else { return }
        members.append("\(Self.quoted(key)):\(value)")
    }

    package mutating func add(_ key: String, _ value: Bool) {
        members.append("\(Self.quoted(key)):\(value)")
    }

    package mutating func add(_ key: String, _ values: [String]) {
        members.append("\(Self.quoted(key)):[" + values.map(Self.quoted).joined(separator: ",") + "]")
    }

    package mutating func add(_ key: String, _ value: Double?) {
        guard let value, value.isFinite else { return }
        members.append("\(Self.quoted(key)):\(value)")
    }

    /// An array of objects, e.g. the failures of a run.
    package mutating func add(_ key: String, objects: [JSONLine]) {
        members.append("\(Self.quoted(key)):[" + objects.map(\.text).joined(separator: ",") + "]")
    }

    package var text: String { "{" + members.joined(separator: ",") + "}" }

    /// A JSON string literal: quotes, backslashes and control characters escaped (RFC 8259), and
    /// with them DEL, the C1 controls, U+2028, U+2029 and the bidi controls (``TerminalText/isControl(_:)``), which
    /// JSON allows raw but a terminal showing the line would act on.
    package static func quoted(_ string: String) -> String {
        // Most strings (keys, paths, URLs) are printable ASCII without a quote or a backslash:
        // one scan of their bytes and one copy, instead of a test and an append per scalar.
        if string.utf8.allSatisfy({ (0x20..<0x7F).contains($0) && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            return "\"" + string + "\""
        }
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where TerminalText.isControl(scalar):
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
