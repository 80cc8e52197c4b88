extension Collection<UInt8> {
    /// Calls `body` with the bytes in one buffer: in place when the collection
    /// stores them contiguously (arrays, slices, `Data`), else copied once.
    func withContiguousBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        if let result = try withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return try Array(self).withUnsafeBytes(body)
    }
}
