// libFuzzer harness over the S3 XML documents (scripts/fuzz.sh s3), compiled together with
// Sources/ThumbnailHTTP/S3/S3Documents.swift and S3Error.swift.
//
// The input is an S3 answer, an <Error> or a ListObjectsV2 page. A finding: a crash, or text that
// does not come back whole: the input's text (up to its first NUL), XML-escaped and put in an
// element, must read back as that text.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzS3Documents(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let error = S3ErrorDocument(bytes)
    _ = error.error("GET /bucket/key", status: 403).description
    if let page = try? S3ListPage(bytes, request: "LIST s3://bucket/prefix") {
        precondition(page.objects.allSatisfy { $0.bytes >= 0 }, "a negative size was accepted")
        _ = page.nextContinuationToken?.count
    }

    let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    let document = Array("<Error><Code>\(S3FuzzEscaper.escaped(text))</Code></Error>".utf8)
    let code = S3XMLText.values(of: "Code", in: document)
    precondition(code == [text], "escaped text read back as \(code), not [\(text)]")
    return 0
}

/// XML's escaping of text in an element, as a server writes it.
enum S3FuzzEscaper {
    static let references: [Unicode.Scalar: String] = ["&": "&amp;", "<": "&lt;", ">": "&gt;"]

    static func escaped(_ text: String) -> String {
        text.unicodeScalars.map { references[$0] ?? String($0) }.joined()
    }
}
