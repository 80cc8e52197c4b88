// libFuzzer harness over TerminalText (scripts/fuzz.sh text), compiled together with
// Sources/ThumbnailTerminal/TerminalText.swift.
//
// The input is text from a stranger (a feed title, a server's reason, a file name). A finding: a
// crash, a scalar a terminal would act on left in the output, escaping that does not read back to
// the very bytes it was given, or the two entry points disagreeing on valid UTF-8.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTerminalText(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let escaped = TerminalText.escaped(utf8: bytes)
    precondition(!escaped.unicodeScalars.contains(where: TerminalText.isControl), "a control scalar is left in the output")
    precondition(TerminalFuzzUnescaper.bytes(of: escaped) == bytes, "the escaped text does not read back to the input")

    if let text = String(validating: bytes, as: UTF8.self) {
        precondition(TerminalText.escaped(text) == escaped, "escaped(_:) and escaped(utf8:) differ on valid UTF-8")
        precondition(TerminalText.escaped(text.dropFirst()) == TerminalText.escaped(utf8: Array(text.dropFirst().utf8)),
                     "escaping a substring differs from escaping its bytes")
    }
    return 0
}

/// Reads the escapes TerminalText documents back into bytes: `\\`, `\u{HEX}` and `\xHH`.
enum TerminalFuzzUnescaper {
    static func bytes(of escaped: String) -> [UInt8]? {
        var result: [UInt8] = []
        var scalars = escaped.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "\\" else {
                result += Array(String(scalar).utf8)
                continue
            }
            switch scalars.next() {
            case "\\":
                result.append(UInt8(ascii: "\\"))
            case "x":
                guard let high = scalars.next(), let low = scalars.next(),
                      let byte = UInt8(String(high) + String(low), radix: 16) else { return nil }
                result.append(byte)
            case "u":
                guard scalars.next() == "{" else { return nil }
                var digits = ""
                while let next = scalars.next(), next != "}" { digits.unicodeScalars.append(next) }
                guard let value = UInt32(digits, radix: 16), let decoded = Unicode.Scalar(value) else { return nil }
                result += Array(String(decoded).utf8)
            default:
                return nil
            }
        }
        return result
    }
}
