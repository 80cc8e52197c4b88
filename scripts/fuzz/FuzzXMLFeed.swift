// libFuzzer harness over the XML feed reader (scripts/fuzz.sh xml): RSS and Atom through FeedParser,
// libxml2's SAX parser loaded as in production (libxml2 itself is not instrumented). A finding: a
// crash, a hang, or a broken promise of FeedParser's result (FeedFuzzing).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXMLFeed(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FeedFuzzing.parse(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
