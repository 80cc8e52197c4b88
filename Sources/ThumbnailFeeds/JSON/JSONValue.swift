/// A parsed JSON document, as far as the feed readers need it.
///
/// The readers only take strings, arrays and objects; numbers, booleans and null are kept as what they are,
/// without their values, so that a message can say what was found where an image URL should be.
enum JSONValue: Equatable {
    case null
    case boolean
    case number
    case string(String)
    case array([JSONValue])
    /// Members by name; when a name repeats, the last one wins, as with `JSONSerialization`.
    case object([String: JSONValue])

    /// The kind of value with its article, for messages: "an object", "a number".
    var kindDescription: String {
        switch self {
        case .null: "null"
        case .boolean: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
