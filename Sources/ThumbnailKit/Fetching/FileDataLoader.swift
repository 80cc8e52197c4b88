#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Loads `file://` URLs and plain paths, in chunks streamed into the sink,
/// with progress, the size limit and cancellation checked between chunks.
public struct FileDataLoader: DataLoading {
    /// Bytes read per chunk (and per progress report). Default: 256 KiB.
    public var chunkSize: Int

    /// A loader reading `chunkSize` bytes at a time; a precondition failure unless it is positive.
    /// - Parameter chunkSize: Bytes read per chunk. Default: 256 KiB.
    public init(chunkSize: Int = 256 * 1024) {
        precondition(chunkSize > 0)
        self.chunkSize = chunkSize
    }

    /// The file path for a `file://` URL (percent-escapes decoded) or a plain path; `nil` for other schemes.
    public static func path(for url: String) -> String? {
        if url.hasPrefix("file://") {
            var rest = url.dropFirst("file://".count)
            if rest.hasPrefix("localhost/") { rest = rest.dropFirst("localhost".count) }
            guard rest.hasPrefix("/") else { return nil }
            return percentDecoded(String(rest))
        }
        if let colon = url.firstIndex(of: ":"), let slash = url.firstIndex(of: "/"), colon < slash { return nil }
        return url
    }

    public func load(_ request: DataRequest, into sink: any BodySink,
                     progress: @escaping @Sendable (TransferProgress) -> Void) async throws -> ResponseHead {
        guard let path = Self.path(for: request.url) else { throw DataLoadingError.unsupportedURL(request.url) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw DataLoadingError.notFound(request.url) }
            throw DataLoadingError.unreadable(request.url, reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw DataLoadingError.unreadable(request.url, reason: "not a regular file")
        }
        let size = Int(status.st_size)
        guard size <= request.maximumBytes else {
            throw DataLoadingError.tooLarge(request.url, bytes: size, limit: request.maximumBytes)
        }
        let head = ResponseHead(expectedBytes: size)
        try sink.begin(head)
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        var received = 0
        progress(TransferProgress(receivedBytes: 0, expectedBytes: size))
        while true {
            try Task.checkCancellation()
            let got = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw DataLoadingError.unreadable(request.url, reason: String(cString: strerror(errno)))
            }
            if got == 0 { break }
            received += got
            // The file may have grown since fstat.
            guard received <= request.maximumBytes else {
                throw DataLoadingError.tooLarge(request.url, bytes: received, limit: request.maximumBytes)
            }
            try chunk.withUnsafeBytes { try sink.write(UnsafeRawBufferPointer(rebasing: $0[..<got])) }
            progress(TransferProgress(receivedBytes: received, expectedBytes: max(size, received)))
            await Task.yield()
        }
        return head
    }

    private static func percentDecoded(_ text: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(),
                  let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(value)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
