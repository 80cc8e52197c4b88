/// Reads a ``FeedBytes`` forward a byte at a time through a buffer of 64 KiB, so a parser walks a
/// document on disk as it would an array, holding one piece of it.
///
/// A read error ends the input where it happened: `peek` then returns `nil`, as at the end, and the
/// parser reports ``readError`` instead of whatever it expected there.
struct ByteCursor {
    let document: FeedBytes
    /// The position of the next byte, from the document's start.
    private(set) var offset: Int
    /// Why the document could not be read on, if it could not.
    private(set) var readError: FeedError?
    private var buffer: [UInt8]
    /// Where `buffer[0]` is in the document, and how many of its bytes are the document's.
    private var bufferStart = 0
    private var bufferCount = 0

    static let bufferSize = 1 << 16

    init(_ document: FeedBytes, offset: Int = 0) {
        self.document = document
        self.offset = offset
        buffer = [UInt8](repeating: 0, count: Self.bufferSize)
    }

    /// The byte `ahead` bytes past the current one, `nil` past the end.
    mutating func peek(ahead: Int = 0) -> UInt8? {
        let position = offset + ahead
        let index = position - bufferStart
        if index >= 0, index < bufferCount { return buffer[index] }
        guard position < document.count, readError == nil else { return nil }
        refill()
        let refilled = position - bufferStart
        return refilled < bufferCount ? buffer[refilled] : nil
    }

    mutating func advance(by count: Int = 1) {
        offset += count
    }

    /// Loads the buffer from the current offset, so any lookahead of less than its size is in it.
    private mutating func refill() {
        bufferStart = offset
        let read = buffer.withUnsafeMutableBytes { whole in
            Result { [document, offset] () throws(FeedError) in try document.read(at: offset, into: whole) }
        }
        switch read {
        case .success(let count):
            bufferCount = count
        case .failure(let error):
            bufferCount = 0
            readError = error
        }
    }
}
