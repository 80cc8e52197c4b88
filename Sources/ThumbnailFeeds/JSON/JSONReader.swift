/// Parses JSON (RFC 8259), keeping what a `JSONSelection` asks for and reporting the line and column of
/// the first error.
///
/// A parser of our own rather than `JSONSerialization`, whose errors give a byte offset at best and differ
/// between platforms, and which holds the whole tree. It is iterative, with its own stack of open
/// containers, and every loop advances through the input, so it cannot overflow the stack or hang while
/// parsing. It reads the document through a `ByteCursor`, a piece at a time.
///
/// Time grows in proportion to the document; memory in proportion to what is kept: members are appended in
/// place to the container on top of the stack, never to a copy of it, and `elementsMoved` counts what
/// reallocations cost. Strings are kept up to `FeedLimits.maximumTextBytes`, and each item of the
/// selection's list up to `FeedLimits.maximumItemBytes`.
struct JSONReader {
    /// How deeply arrays and objects may nest. Parsing would cope with any depth, but releasing (or
    /// comparing) a `JSONValue` recurses once per level, and 100 000 levels overflow a thread's stack.
    static let maximumDepth = FeedLimits.maximumDepth

    private var cursor: ByteCursor
    private let selection: JSONSelection

    /// How many values and member names were moved into new storage, a measure of the work done beyond
    /// reading the input. Growing by doubling, a container moves fewer than two elements per element it
    /// ends with, and an object's values move once more into its dictionary; appending to a copy of each
    /// container would make it grow with the square of their sizes.
    private(set) var elementsMoved = 0

    /// What is done with a value and its members.
    private enum Role {
        /// The top-level object of a selection: the members it names are kept shallowly, its list streamed.
        case document
        /// The array of items: each element is handed over as it is read.
        case list
        /// Kept, with the members the selection keeps of objects.
        case kept
        /// Read, not kept: the value is an empty container of its kind.
        case shallow
    }

    /// An array or object whose members are still being read. It stays on the stack while they are
    /// appended to it in place; taken off to append to, it would be copied whole for every member.
    private struct OpenContainer {
        enum Kind { case array, object }

        let kind: Kind
        let role: Role
        /// The array's elements, or the object's member values, in document order.
        var values: [JSONValue] = []
        /// The object's member names in document order, the last one that of the member being read.
        var names: [String] = []
        /// Whether the member being read is kept (for an object: its name is selected).
        var keepsMember = true
        /// Elements read (for the list: the index of the next item).
        var count = 0
    }

    /// The item being read, while inside the list: its index and the bytes it keeps so far.
    private var item: (index: Int, keptBytes: Int)?

    /// The whole document in `bytes`, which may start with a UTF-8 byte-order mark.
    static func parse(_ bytes: [UInt8]) throws(FeedError) -> JSONValue {
        var reader = JSONReader(bytes)
        return try reader.read()
    }

    /// A reader of the whole document in `bytes`, which may start with a UTF-8 byte-order mark.
    init(_ bytes: [UInt8]) {
        self.init(FeedBytes(bytes), selection: .everything,
                  skipping: bytes.starts(with: UTF8.byteOrderMark) ? UTF8.byteOrderMark.count : 0)
    }

    /// A reader of what `selection` keeps of `document`, which may start with a UTF-8 byte-order mark.
    init(_ document: FeedBytes, selection: JSONSelection) throws(FeedError) {
        let hasByteOrderMark = try document.bytes(in: 0..<UTF8.byteOrderMark.count) == UTF8.byteOrderMark
        self.init(document, selection: selection, skipping: hasByteOrderMark ? UTF8.byteOrderMark.count : 0)
    }

    private init(_ document: FeedBytes, selection: JSONSelection, skipping start: Int) {
        cursor = ByteCursor(document, offset: start)
        self.selection = selection
    }

    /// The document's value, as far as the selection keeps it; call it once.
    mutating func read() throws(FeedError) -> JSONValue {
        var open: [OpenContainer] = []
        readingValue: while true {
            skipWhitespace()
            if open.count == Self.maximumDepth, peek() == UInt8(ascii: "[") || peek() == UInt8(ascii: "{") {
                throw failure("arrays and objects nest deeper than \(Self.maximumDepth) levels")
            }
            let role = open.last.map(childRole) ?? rootRole()
            if open.last?.role == .list {
                item = (open[open.count - 1].count, 0)
            }
            var value: JSONValue
            switch peek() {
            case UInt8(ascii: "{"):
                advance()
                skipWhitespace()
                if peek() == UInt8(ascii: "}") {
                    advance()
                    value = .object([:])
                } else {
                    // An object where the items should be is read as one, not as a list.
                    var container = OpenContainer(kind: .object, role: role == .list ? .shallow : role)
                    let name = try memberName()
                    container.keepsMember = keeps(name, in: container)
                    if container.keepsMember { container.names = [name] }
                    open.append(container)
                    continue readingValue
                }
            case UInt8(ascii: "["):
                advance()
                skipWhitespace()
                if peek() == UInt8(ascii: "]") {
                    advance()
                    value = .array([])
                } else {
                    open.append(OpenContainer(kind: .array, role: role))
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
                try keep(value, in: &open[top])
                skipWhitespace()
                switch open[top].kind {
                case .array:
                    if consume(UInt8(ascii: ",")) { continue readingValue }
                    guard consume(UInt8(ascii: "]")) else { throw error(expected: "“,” or “]” after an array element") }
                    value = .array(open.removeLast().values)
                case .object:
                    if consume(UInt8(ascii: ",")) {
                        skipWhitespace()
                        let name = try memberName()
                        open[top].keepsMember = keeps(name, in: open[top])
                        if open[top].keepsMember { append(name, to: &open[top].names) }
                        continue readingValue
                    }
                    guard consume(UInt8(ascii: "}")) else { throw error(expected: "“,” or “}” after an object member") }
                    value = .object(members(of: open.removeLast()))
                }
            }
            skipWhitespace()
            guard peek() == nil else { throw error(expected: "the end of the document after the JSON value") }
            if let readError = cursor.readError { throw readError }
            return value
        }
    }

    // MARK: - Selection

    /// The role of the document's value.
    private mutating func rootRole() -> Role {
        guard selection.documentMembers != nil else { return .kept }
        switch peek() {
        case UInt8(ascii: "{"): return .document
        case UInt8(ascii: "["): return selection.list == .root ? .list : .shallow
        default: return .kept
        }
    }

    /// The role of the member or element being read in `container`.
    private func childRole(_ container: OpenContainer) -> Role {
        switch container.role {
        case .document:
            guard case .member(let name)? = selection.list, container.names.last == name else { return .shallow }
            return .list
        case .list, .kept:
            return container.keepsMember ? .kept : .shallow
        case .shallow:
            return .shallow
        }
    }

    /// Whether the member `name` of `container` is kept.
    private func keeps(_ name: String, in container: OpenContainer) -> Bool {
        switch container.role {
        case .document: selection.documentMembers.map { $0.contains(name) || selection.list == .member(name) } ?? true
        case .kept, .list: selection.itemMembers?.contains(name) ?? true
        case .shallow: false
        }
    }

    /// Adds the finished `value` to `container`: kept, handed over as an item, or dropped.
    private mutating func keep(_ value: JSONValue, in container: inout OpenContainer) throws(FeedError) {
        defer { container.count += 1 }
        if container.role == .list {
            try selection.onItem(value, container.count)
            item = nil
            return
        }
        guard container.role != .shallow, container.keepsMember else { return }
        if var current = item, let list = selection.list {
            if case .string(let text) = value { current.keptBytes += text.utf8.count }
            current.keptBytes += 16
            item = current
            guard current.keptBytes <= FeedLimits.maximumItemBytes else {
                throw .unexpectedStructure(path: list.path(of: current.index),
                                           reason: "the item keeps more than \(FeedLimits.maximumItemBytes >> 20) MiB "
                                               + "of titles, image URLs and attachments, the most an item may")
            }
        }
        append(value, to: &container.values)
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

    /// A finished object's kept members by name; when a name repeats, the last one wins, as with
    /// `JSONSerialization`.
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

    /// The string at the cursor, its first `FeedLimits.maximumTextBytes` bytes and “…” when it is longer.
    /// All of it is checked: its escapes, and that its bytes are UTF-8.
    private mutating func string() throws(FeedError) -> String {
        let opening = cursor.offset
        advance()
        var utf8: [UInt8] = []
        var isLonger = false
        var validator = UTF8Validator()
        func keep(_ bytes: [UInt8]) {
            if utf8.count + bytes.count <= FeedLimits.maximumTextBytes {
                utf8.append(contentsOf: bytes)
            } else {
                isLonger = true
            }
        }
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: "\""):
                guard validator.isBetweenCharacters else { throw invalidUTF8(at: validator.characterStart) }
                advance()
                return FeedLimits.cut(utf8, wasLonger: isLonger)
            case UInt8(ascii: "\\"):
                guard validator.isBetweenCharacters else { throw invalidUTF8(at: validator.characterStart) }
                advance()
                keep(try escape())
            case 0..<0x20:
                throw failure("a control character (U+\(hex(byte, digits: 4))) inside a string; JSON needs it escaped")
            default:
                guard validator.accepts(byte, at: cursor.offset) else { throw invalidUTF8(at: validator.characterStart) }
                // Not through `keep`: a call per byte costs the debug build's tests dearly.
                if utf8.count < FeedLimits.maximumTextBytes {
                    utf8.append(byte)
                } else {
                    isLonger = true
                }
                advance()
            }
        }
        if let readError = cursor.readError { throw readError }
        let start = try TextPosition(offset: opening, in: cursor.document)
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
            advance()
            return [byte]
        }
        guard letter == UInt8(ascii: "u") else {
            throw failure("“\\\(Character(Unicode.Scalar(letter)))” is not a JSON escape sequence")
        }
        let escapeStart = cursor.offset - 1
        advance()
        let unit = try hexCodeUnit()
        var scalar = Unicode.Scalar(unit)
        if UTF16.isLeadSurrogate(unit) {
            // A character outside the Basic Multilingual Plane: the trailing half must follow at once.
            if peek() == UInt8(ascii: "\\"), peek(ahead: 1) == UInt8(ascii: "u") {
                advance(by: 2)
                let trailStart = cursor.offset
                let trail = try hexCodeUnit()
                if UTF16.isTrailSurrogate(trail) {
                    scalar = Unicode.Scalar(0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(trail - 0xDC00))
                } else {
                    cursor = ByteCursor(cursor.document, offset: trailStart - 2)
                }
            }
        }
        guard let scalar else {
            cursor = ByteCursor(cursor.document, offset: escapeStart)
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
            advance()
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
            advance()
        }
    }

    private mutating func literal(_ word: String) throws(FeedError) {
        for expected in word.utf8 {
            guard peek() == expected else { throw error(expected: "“\(word)”") }
            advance()
        }
    }

    // MARK: - Input

    private mutating func peek(ahead: Int = 0) -> UInt8? {
        cursor.peek(ahead: ahead)
    }

    private mutating func advance(by count: Int = 1) {
        cursor.advance(by: count)
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        advance()
        return true
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            advance()
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    // MARK: - Errors

    /// An error at the current offset; the read error instead, when the document could not be read on.
    private mutating func failure(_ reason: String) -> FeedError {
        if let readError = cursor.readError { return readError }
        do {
            let position = try TextPosition(offset: cursor.offset, in: cursor.document)
            return .malformedJSON(line: position.line, column: position.column, reason: reason)
        } catch {
            return error
        }
    }

    /// "expected X, found Y" at the current offset.
    private mutating func error(expected: String) -> FeedError {
        failure("expected \(expected), found \(foundDescription())")
    }

    /// What is at the current offset, for a message: a character in quotes, a code point, or the end.
    private mutating func foundDescription() -> String {
        guard let first = peek() else { return "the end of the document" }
        var bytes = [first]
        while bytes.count < 4, let next = peek(ahead: bytes.count) { bytes.append(next) }
        var parser = Unicode.UTF8.ForwardParser()
        var input = bytes.makeIterator()
        guard case .valid(let encoded) = parser.parseScalar(from: &input) else {
            return "the byte 0x\(hex(first, digits: 2)), which is not UTF-8"
        }
        let scalar = UTF8.decode(encoded)
        return scalar.properties.generalCategory == .control ? "U+\(hex(scalar.value, digits: 4))" : "“\(scalar)”"
    }

    /// The error for a string whose character starting at `offset` is not UTF-8.
    private mutating func invalidUTF8(at offset: Int) -> FeedError {
        cursor = ByteCursor(cursor.document, offset: offset)
        let byte = peek() ?? 0
        return failure("the byte 0x\(hex(byte, digits: 2)) inside a string is not UTF-8")
    }

    private func hex(_ value: some BinaryInteger, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
