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

    init(_ body: [UInt8]) {
        objects = S3XMLText.sections(named: "Contents", in: body).compactMap { section in
            let contents = Array(section)
            guard let key = S3XMLText.values(of: "Key", in: contents).first,
                  let size = S3XMLText.values(of: "Size", in: contents).first.flatMap({ Int($0) })
            else { return nil }
            return (Self.urlDecoded(key), size)
        }
        isTruncated = S3XMLText.values(of: "IsTruncated", in: body).first == "true"
        nextContinuationToken = S3XMLText.values(of: "NextContinuationToken", in: body).first
    }

    /// A key as `encoding-type=url` sends it: percent-encoded UTF-8.
    private static func urlDecoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next(),
               let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) {
                bytes.append(value)
            } else {
                bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
