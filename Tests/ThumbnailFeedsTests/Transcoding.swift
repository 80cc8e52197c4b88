#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Text in character sets Swift's standard library does not write (UTF-7, EBCDIC), through the C
/// library's iconv, to build documents in the encodings a feed may declare.
enum Transcoding {
    /// `text` in `charset` (an iconv name such as `UTF-16LE`, `UTF-7` or `IBM037`), without a byte-order mark.
    static func encode(_ text: String, as charset: String) -> [UInt8] {
        let converter = iconv_open(charset, "UTF-8")
        precondition(Int(bitPattern: converter) != -1, "iconv cannot convert to \(charset)")
        defer { iconv_close(converter) }
        var input = Array(text.utf8).map { CChar(bitPattern: $0) }
        var output = [CChar](repeating: 0, count: input.count * 8 + 16)
        let written = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                var inputPointer = inputBuffer.baseAddress
                var inputLeft = inputBuffer.count
                var outputPointer = outputBuffer.baseAddress
                var outputLeft = outputBuffer.count
                let converted = iconv(converter, &inputPointer, &inputLeft, &outputPointer, &outputLeft)
                // Ends a shift sequence (UTF-7's base64 run) with no more input.
                let flushed = iconv(converter, nil, nil, &outputPointer, &outputLeft)
                precondition(converted != -1 && flushed != -1 && inputLeft == 0, "iconv failed for \(charset)")
                return outputBuffer.count - outputLeft
            }
        }
        return output[..<written].map { UInt8(bitPattern: $0) }
    }
}
