// libFuzzer harness over the JSON reader (scripts/fuzz.sh json): JSONReader, then JSON Feed or plain
// JSON through FeedParser. A finding: a crash, a hang, work beyond one element moved per byte of
// input (JSONReader.elementsMoved), or a broken promise of FeedParser's result (FeedFuzzing).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONFeed(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var reader = JSONReader(bytes)
    do {
        _ = try reader.read()
    } catch {
        FeedFuzzing.check(error)
    }
    precondition(reader.elementsMoved <= bytes.count, "\(reader.elementsMoved) elements moved for \(bytes.count) bytes")

    // Plain JSON with the image found by guessing, or along a key path (one with an array index).
    let keyPaths = [nil, "media.large.href", "images.0.url"]
    FeedFuzzing.parse(bytes, imageKeyPath: keyPaths[size / 2 % keyPaths.count])
    return 0
}
