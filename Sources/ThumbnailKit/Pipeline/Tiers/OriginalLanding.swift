import Synchronization

/// Where a download's body lands: the original tier's temporary file (hashed
/// on the way, committed only once it has decoded), or memory, which then
/// holds the whole body.
enum OriginalLanding: Sendable {
    case memory
    case disk(DiskOriginals)

    /// A sink of its own for one download attempt of `url`.
    func makeSink(for url: String) -> OriginalSink {
        OriginalSink(landing: self, url: url)
    }
}

/// One download attempt's body, landing where ``OriginalLanding`` says.
final class OriginalSink: BodySink {
    private enum Destination {
        case none
        case file(DiskCacheEntryWriter)
        case memory(MemoryBodySink)
    }

    private let landing: OriginalLanding
    private let url: String
    private let destination = Mutex(Destination.none)

    init(landing: OriginalLanding, url: String) {
        self.landing = landing
        self.url = url
    }

    /// What the disk tier records about an original from its response.
    static func metadata(of url: String, _ response: ResponseHead) -> DiskCacheMetadata {
        DiskCacheMetadata(url: url, etag: response.etag, lastModified: response.lastModified,
                          contentType: response.contentType)
    }

    func begin(_ response: ResponseHead) throws {
        guard !response.notModified else { return }
        let destination: Destination
        switch landing {
        case let .disk(disk):
            destination = .file(try disk.makeWriter(for: url, metadata: Self.metadata(of: url, response)))
        case .memory:
            let memory = MemoryBodySink()
            try memory.begin(response)
            destination = .memory(memory)
        }
        self.destination.withLock { $0 = destination }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        switch destination.withLock({ $0 }) {
        case let .file(writer): try writer.append(bytes)
        case let .memory(memory): try memory.write(bytes)
        case .none: break  // a 304 has no body
        }
    }

    /// The body received, and its size.
    func body() -> (Original.Body, Int) {
        switch destination.withLock({ $0 }) {
        case let .file(writer): (.downloaded(writer), writer.payloadBytes)
        case let .memory(memory): (.memory(memory.bytes), memory.bytes.count)
        case .none: (.memory([]), 0)
        }
    }
}
