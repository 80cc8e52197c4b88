/// Parses JSON (RFC 8259) into a `JSONValue`, reporting the line and column of the first error.
///
/// A parser of our own rather than `JSONSerialization`, whose errors give a byte offset at best and differ
/// between platforms. It is iterative, with its own stack of open containers, and every loop advances
/// through the input, so it cannot overflow the stack or hang while parsing.
///
/// Time and memory grow in proportion to the document: members are appended in place to the container on
/// top of the stack, never to a copy of it, and `elementsMoved` counts what reallocations cost.
struct JSONReader {
    /// How deeply arrays and objects may nest. Parsing would cope with any depth, but releasing (or
    /// comparing) a `JSONValue` recurses once per level, and 100 000 levels overflow a thread's stack.
    /// Feeds nest a handful of levels; 512 is also what Foundation's `JSONDecoder` allows.
    static let maximumDepth = 512

    private let bytes: [UInt8]
    private var offset: Int

    /// How many values and member names were moved into new storage, a measure of the work done beyond
    /// reading the input. Growing by doubling, a container moves fewer than two elements per element it
    /// ends with, and an object's values move once more into its dictionary; appending to a copy of each
    /// container would make it grow with the square of their sizes.
    private(set) var elementsMoved = 0

    /// An array or object whose members are still being read. It stays on the stack while they are
    /// appended to it in place; taken off to append to, it would be copied whole for every member.
    private struct OpenContainer {
        enum Kind { case array, object }

        let kind: Kind
        /// The array's elements, or the object's member values, in document order.
        var values: [JSONValue] = []
        /// The object's member names in document order, the last one that of the member being read.
        var names: [String] = []
    }

    /// The document in `bytes`, which may start with a UTF-8 byte-order mark.
    static func parse(_ bytes: [UInt8]) throws(FeedError) -> JSONValue {
        var reader = JSONReader(bytes)
        return try reader.read()
    }

    /// A reader of the document in `bytes`, which may start with a UTF-8 byte-order mark.
    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        offset = bytes.starts(with: UTF8.byteOrderMark) ? UTF8.byteOrderMark.count : 0
    }

    /// The document's value; call it once.
    mutating func read() throws(FeedError) -> JSONValue {
        var open: [OpenContainer] = []
        readingValue: while true {
            skipWhitespace()
            if open.count == Self.maximumDepth, peek() == UInt8(ascii: "[") || peek() == UInt8(ascii: "{") {
                throw failure("arrays and objects nest deeper than \(Self.maximumDepth) levels")
            }
            var value: JSONValue
            switch peek() {
            case UInt8(ascii: "{"):
                offset += 1
                skipWhitespace()
                if peek() == UInt8(ascii: "}") {
                    offset += 1
                    value = .object([:])
                } else {
                    open.append(OpenContainer(kind: .object, names: [try memberName()]))
                    continue readingValue
                }
            case UInt8(ascii: "["):
                offset += 1
                skipWhitespace()
                if peek() == UInt8(ascii: "]") {
                    offset += 1
                    value = .array([])
                } else {
                    open.append(OpenContainer(kind: .array))
                    continue readingValue
                }
            case UInt8(ascii: "\""):
                value = .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                value = .boolean
            case UInt8(ascii: "f"):
                try literal("false")
                value = .boolean
            case UInt8(ascii: "n"):
                try literal("null")
                value = .null
            case let byte? where byte == UInt8(ascii: "-") || isDigit(byte):
                try number()
                value = .number
            default:
                throw error(expected: "a value")
            }

            // A value is complete: hand it to the container it belongs to, closing containers as they end.
            while !open.isEmpty {
                let top = open.count - 1
                append(value, to: &open[top].values)
                skipWhitespace()
                switch open[top].kind {
                case .array:
                    if consume(UInt8(ascii: ",")) { continue readingValue }
                    guard consume(UInt8(ascii: "]")) else { throw error(expected: "“,” or “]” after an array element") }
                    value = .array(open.removeLast().values)
                case .object:
                    if consume(UInt8(ascii: ",")) {
                        skipWhitespace()
                        append(try memberName(), to: &open[top].names)
                        continue readingValue
                    }
                    guard consume(UInt8(ascii: "}")) else { throw error(expected: "“,” or “}” after an object member") }
                    value = .object(members(of: open.removeLast()))
                }
            }
            skipWhitespace()
            guard offset == bytes.count else { throw error(expected: "the end of the document after the JSON value") }
            return value
        }
    }

    /// Appends `element`, adding to `elementsMoved` what `array` held whenever its storage moves: when it
    /// grows, or when it was shared and so copied first.
    private mutating func append<Element>(_ element: Element, to array: inout [Element]) {
        let count = array.count
        let storage = array.withUnsafeBufferPointer { $0.baseAddress }
        array.append(element)
        let newStorage = array.withUnsafeBufferPointer { $0.baseAddress }
        if newStorage != storage {
            elementsMoved += count
        }
    }

    /// A finished object's members by name; when a name repeats, the last one wins, as with `JSONSerialization`.
    private mutating func members(of object: OpenContainer) -> [String: JSONValue] {
        elementsMoved += object.values.count
        return Dictionary(zip(object.names, object.values), uniquingKeysWith: { _, last in last })
    }

    // MARK: - Tokens

    /// A member's name and the colon after it; whitespace before it is already skipped.
    private mutating func memberName() throws(FeedError) -> String {
        guard peek() == UInt8(ascii: "\"") else { throw error(expected: "a member name in double quotes") }
        let name = try string()
        skipWhitespace()
        guard consume(UInt8(ascii: ":")) else { throw error(expected: "“:” after the member name") }
        return name
    }

    private mutating func string() throws(FeedError) -> String {
        let opening = offset
        offset += 1
        var utf8: [UInt8] = []
        while offset < bytes.count {
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                offset += 1
                guard let text = String(validating: utf8, as: UTF8.self) else {
                    throw invalidUTF8(between: opening + 1, and: offset - 1)
                }
                return text
            case UInt8(ascii: "\\"):
                offset += 1
                utf8.append(contentsOf: try escape())
            case 0..<0x20:
                throw failure("a control character (U+\(hex(byte, digits: 4))) inside a string; JSON needs it escaped")
            default:
                utf8.append(byte)
                offset += 1
            }
        }
        let start = TextPosition(offset: opening, in: bytes)
        throw failure("the string that starts at line \(start.line), column \(start.column) is not closed")
    }

    /// The UTF-8 of the escape sequence after a backslash.
    private mutating func escape() throws(FeedError) -> [UInt8] {
        guard let letter = peek() else { throw error(expected: "an escape sequence after “\\”") }
        let simple: [UInt8: UInt8] = [
            UInt8(ascii: "\""): UInt8(ascii: "\""), UInt8(ascii: "\\"): UInt8(ascii: "\\"),
            UInt8(ascii: "/"): UInt8(ascii: "/"), UInt8(ascii: "b"): 0x08, UInt8(ascii: "f"): 0x0C,
            UInt8(ascii: "n"): 0x0A, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09,
        ]
        if let byte = simple[letter] {
            offset += 1
            return [byte]
        }
        guard letter == UInt8(ascii: "u") else {
            throw failure("“\\\(Character(Unicode.Scalar(letter)))” is not a JSON escape sequence")
        }
        let escapeStart = offset - 1
        offset += 1
        let unit = try hexCodeUnit()
        var scalar = Unicode.Scalar(unit)
        if UTF16.isLeadSurrogate(unit) {
            // A character outside the Basic Multilingual Plane: the trailing half must follow at once.
            if bytes[offset...].starts(with: Array("\\u".utf8)) {
                let trailStart = offset
                offset += 2
                let trail = try hexCodeUnit()
                if UTF16.isTrailSurrogate(trail) {
                    scalar = Unicode.Scalar(0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(trail - 0xDC00))
                } else {
                    offset = trailStart
                }
            }
        }
        guard let scalar else {
            offset = escapeStart
            throw failure("\\u\(hex(unit, digits: 4)) is half of a UTF-16 surrogate pair without its other half")
        }
        return Array(String(Character(scalar)).utf8)
    }

    /// The four hex digits of a `\u` escape.
    private mutating func hexCodeUnit() throws(FeedError) -> UInt16 {
        var unit: UInt16 = 0
        for _ in 0..<4 {
            guard let byte = peek(), let digit = Character(Unicode.Scalar(byte)).hexDigitValue else {
                throw error(expected: "four hex digits after “\\u”")
            }
            unit = unit << 4 | UInt16(digit)
            offset += 1
        }
        return unit
    }

    /// Checks the number's grammar; feed readers never need its value.
    private mutating func number() throws(FeedError) {
        _ = consume(UInt8(ascii: "-"))
        if consume(UInt8(ascii: "0")) {
            if let next = peek(), isDigit(next) { throw failure("a number may not start with a 0 followed by digits") }
        } else {
            try digits(after: "“-”")
        }
        if consume(UInt8(ascii: ".")) {
            try digits(after: "the decimal point")
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            _ = consume(UInt8(ascii: "+")) || consume(UInt8(ascii: "-"))
            try digits(after: "the exponent")
        }
    }

    private mutating func digits(after what: String) throws(FeedError) {
        guard let first = peek(), isDigit(first) else { throw error(expected: "a digit after \(what)") }
        while let next = peek(), isDigit(next) {
            offset += 1
        }
    }

    private mutating func literal(_ word: String) throws(FeedError) {
        for expected in word.utf8 {
            guard peek() == expected else { throw error(expected: "“\(word)”") }
            offset += 1
        }
    }

    // MARK: - Input

    private func peek() -> UInt8? {
        offset < bytes.count ? bytes[offset] : nil
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        offset += 1
        return true
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            offset += 1
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    // MARK: - Errors

    /// An error at the current offset.
    private func failure(_ reason: String) -> FeedError {
        let position = TextPosition(offset: offset, in: bytes)
        return .malformedJSON(line: position.line, column: position.column, reason: reason)
    }

    /// "expected X, found Y" at the current offset.
    private func error(expected: String) -> FeedError {
        failure("expected \(expected), found \(foundDescription())")
    }

    /// What is at the current offset, for a message: a character in quotes, a code point, or the end.
    private func foundDescription() -> String {
        guard offset < bytes.count else { return "the end of the document" }
        var parser = Unicode.UTF8.ForwardParser()
        var input = bytes[offset...].makeIterator()
        guard case .valid(let encoded) = parser.parseScalar(from: &input) else {
            return "the byte 0x\(hex(bytes[offset], digits: 2)), which is not UTF-8"
        }
        let scalar = UTF8.decode(encoded)
        return scalar.properties.generalCategory == .control ? "U+\(hex(scalar.value, digits: 4))" : "“\(scalar)”"
    }

    /// The error for a string whose raw bytes (between the quotes, from `start` to `end`) are not UTF-8.
    private mutating func invalidUTF8(between start: Int, and end: Int) -> FeedError {
        var parser = Unicode.UTF8.ForwardParser()
        var input = bytes[start..<end].makeIterator()
        offset = start
        while case .valid(let encoded) = parser.parseScalar(from: &input) {
            offset += encoded.count
        }
        return failure("the byte 0x\(hex(bytes[offset], digits: 2)) inside a string is not UTF-8")
    }

    private func hex(_ value: some BinaryInteger, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
