// libFuzzer harness over TerminalText (scripts/fuzz.sh text), compiled together with
// Sources/ThumbnailTerminal/Screen/TerminalText.swift.
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
                UTF8.encode(scalar) { result.append($0) }
                continue
            }
            switch scalars.next() {
            case "\\":
                result.append(UInt8(ascii: "\\"))
            case "x":
                guard let high = hexDigit(scalars.next()), let low = hexDigit(scalars.next()) else { return nil }
                result.append(UInt8(high << 4 | low))
            case "u":
                guard scalars.next() == "{" else { return nil }
                var value: UInt32 = 0
                while let next = scalars.next(), next != "}" {
                    guard let digit = hexDigit(next), value < 0x10_0000 else { return nil }
                    value = value << 4 | UInt32(digit)
                }
                guard let decoded = Unicode.Scalar(value) else { return nil }
                UTF8.encode(decoded) { result.append($0) }
            default:
                return nil
            }
        }
        return result
    }

    private static func hexDigit(_ scalar: Unicode.Scalar?) -> UInt32? {
        scalar.flatMap { Character($0).hexDigitValue }.map(UInt32.init)
    }
}
