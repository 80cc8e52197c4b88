/// The text of S3's XML answers, read for the few elements a client needs.
///
/// S3's documents are flat and regular (no attributes on the elements read, no
/// CDATA, no nesting of a name in itself), so each wanted element is found by
/// its tags and its text unescaped. The library products link no XML parser:
/// libxml2 is reachable only with build flags a versioned dependency may not
/// carry, and the Swift ones need Foundation, which this library does without.
enum S3XMLText {
    /// The unescaped text of every `<name>…</name>` in `document`, in order.
    static func values(of name: String, in document: [UInt8]) -> [String] {
        let open = Array("<\(name)>".utf8)
        let close = Array("</\(name)>".utf8)
        var values: [String] = []
        var index = 0
        while let start = find(open, in: document, from: index) {
            let textStart = start + open.count
            guard let end = find(close, in: document, from: textStart) else { break }
            values.append(unescaped(document[textStart..<end]))
            index = end + close.count
        }
        return values
    }

    /// The slices of `document` between each `<name>` and its `</name>`.
    static func sections(named name: String, in document: [UInt8]) -> [ArraySlice<UInt8>] {
        let open = Array("<\(name)>".utf8)
        let close = Array("</\(name)>".utf8)
        var sections: [ArraySlice<UInt8>] = []
        var index = 0
        while let start = find(open, in: document, from: index),
              let end = find(close, in: document, from: start + open.count) {
            sections.append(document[(start + open.count)..<end])
            index = end + close.count
        }
        return sections
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard needle.count <= haystack.count, start <= haystack.count - needle.count else { return nil }
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0], haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    /// XML's five named entities and numeric character references undone.
    ///
    /// Found in the bytes, not in `Character`s: a combining mark after `&` or `;` (as in a message that
    /// says `&amp;\u{301}`) joins it into another character, and the reference would go unread.
    private static func unescaped(_ text: ArraySlice<UInt8>) -> String {
        guard text.contains(UInt8(ascii: "&")) else { return String(decoding: text, as: UTF8.self) }
        var result: [UInt8] = []
        var rest = text
        while let ampersand = rest.firstIndex(of: UInt8(ascii: "&")) {
            result += rest[..<ampersand]
            guard let semicolon = rest[ampersand...].firstIndex(of: UInt8(ascii: ";")) else { break }
            let entity = String(decoding: rest[(ampersand + 1)..<semicolon], as: UTF8.self)
            switch entity {
            case "amp": result.append(UInt8(ascii: "&"))
            case "lt": result.append(UInt8(ascii: "<"))
            case "gt": result.append(UInt8(ascii: ">"))
            case "quot": result.append(UInt8(ascii: "\""))
            case "apos": result.append(UInt8(ascii: "'"))
            default:
                let number = entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16)
                    : entity.hasPrefix("#") ? UInt32(entity.dropFirst(), radix: 10) : nil
                if let scalar = number.flatMap(Unicode.Scalar.init) {
                    result += Array(String(scalar).utf8)
                } else {
                    result += rest[ampersand...semicolon]
                }
            }
            rest = rest[(semicolon + 1)...]
        }
        return String(decoding: result + rest, as: UTF8.self)
    }
}

/// An `<Error>` document: S3's code and message for a refusal.
struct S3ErrorDocument {
    let code: String?
    let message: String?

    init(_ body: [UInt8]) {
        code = S3XMLText.values(of: "Code", in: body).first
        message = S3XMLText.values(of: "Message", in: body).first
    }

    func error(_ request: String, status: Int) -> S3Error {
        .refused(request, status: status, code: code, message: message)
    }
}

/// One page of a ListObjectsV2 answer asked for with `encoding-type=url`.
struct S3ListPage {
    let objects: [(key: String, bytes: Int)]
    let isTruncated: Bool
    let nextContinuationToken: String?

    /// Reads the page `body` answered to `request`.
    /// - Throws: ``S3Error/malformedAnswer(_:reason:)`` for an object without a key, or whose size is
    ///   missing or not a non-negative whole number, or whose key is not valid percent-encoding: a page
    ///   read in part would make a listing that looks whole.
    init(_ body: [UInt8], request: String) throws(S3Error) {
        var objects: [(key: String, bytes: Int)] = []
        for section in S3XMLText.sections(named: "Contents", in: body) {
            let contents = Array(section)
            guard let encodedKey = S3XMLText.values(of: "Key", in: contents).first else {
                throw .malformedAnswer(request, reason: "an object without a <Key>")
            }
            guard let key = Self.urlDecoded(encodedKey) else {
                throw .malformedAnswer(request, reason: "the key \(encodedKey) has a % not followed by two hex digits")
            }
            let sizeText = S3XMLText.values(of: "Size", in: contents).first
            guard let sizeText, let size = Self.count(sizeText) else {
                throw .malformedAnswer(request, reason: "the object \(key) has the size \(sizeText.map { "\"\($0)\"" } ?? "(none)"), "
                                           + "not a non-negative whole number")
            }
            objects.append((key, size))
        }
        self.objects = objects
        isTruncated = S3XMLText.values(of: "IsTruncated", in: body).first == "true"
        nextContinuationToken = S3XMLText.values(of: "NextContinuationToken", in: body).first
    }

    /// Decimal digits only (no sign, no spaces), within `Int`.
    private static func count(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(text)
    }

    /// A key as `encoding-type=url` sends it: percent-encoded UTF-8; `nil`
    /// when a `%` is not followed by two hex digits (no byte is guessed or dropped).
    private static func urlDecoded(_ text: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                continue
            }
            // A hex digit first: `UInt8(_:radix:)` would take "+f" for 15.
            guard let high = iterator.next(), Character(Unicode.Scalar(high)).isHexDigit, let low = iterator.next(),
                  let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(value)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
