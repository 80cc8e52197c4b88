import Logging
import Synchronization

/// Brings an original: from the original disk tier, or through the data
/// loader under the download limit, retrying transient failures,
/// revalidating a stored copy when asked.
///
/// A download streams into the original tier's temporary file (hashed on the
/// way) and is committed only once it has decoded; without a disk tier it
/// streams into memory, which then holds the whole body.
struct OriginalFetcher: Sendable {
    /// An original's bytes and where they came from.
    struct Original: Sendable {
        /// Where the bytes are.
        enum Body: Sendable {
            /// Checked and open in the original tier.
            case stored(OpenedDiskCacheEntry)
            /// Downloaded into the original tier's temporary file, not committed yet.
            case downloaded(DiskCacheEntryWriter)
            /// Downloaded into memory (no disk tier).
            case memory([UInt8])
        }

        var body: Body
        var metadata: DiskCacheMetadata
        /// Fetched now: commit it once it has decoded.
        var isNew: Bool { if case .stored = body { false } else { true } }
    }

    let loader: any DataLoading
    let disk: DiskCache?
    let limiter: PriorityLimiter
    let retryPolicy: RetryPolicy
    let maximumBytes: Int
    let statistics: StatisticsCounter
    let progress: ProgressRelay<String, ThumbnailProgress>
    let logger: Logger

    /// The original of `url` as `policy` allows. `priority` is followed into the download queue as it rises.
    func original(of url: String, policy: CachePolicy, priority: PriorityFollower) async throws -> Original {
        let stored = policy == .reload ? nil : await openStored(url)
        if let stored, policy == .useCache {
            statistics.record { $0.originalDiskHits += 1 }
            logger.debug("original from disk", metadata: ["url": "\(url)"])
            return Original(body: .stored(stored), metadata: stored.metadata)
        }
        var request = DataRequest(url: url, maximumBytes: maximumBytes)
        if policy == .revalidate, let stored, stored.metadata.etag != nil || stored.metadata.lastModified != nil {
            request.validators = .init(etag: stored.metadata.etag, lastModified: stored.metadata.lastModified)
        }
        let (response, body, byteCount) = try await fetch(request, priority: priority)
        if response.notModified, let stored {
            statistics.record { $0.notModified += 1 }
            logger.debug("original not modified", metadata: ["url": "\(url)"])
            return Original(body: .stored(stored), metadata: stored.metadata)
        }
        statistics.record {
            $0.downloads += 1
            $0.bytesDownloaded += byteCount
        }
        logger.debug("fetched", metadata: ["url": "\(url)", "bytes": "\(byteCount)"])
        return Original(body: body, metadata: OriginalSink.metadata(of: url, response))
    }

    /// Commits a new original's file into the original tier.
    /// - Throws: ``DiskCacheError`` when the disk refused it (its temporary file is then gone).
    func store(_ original: Original) async throws {
        guard case let .downloaded(writer) = original.body else { return }
        try await BlockingWork.run { try writer.commit() }
    }

    private func openStored(_ url: String) async -> OpenedDiskCacheEntry? {
        guard let disk else { return nil }
        do {
            return try await BlockingWork.run { try disk.openEntry(forKey: url, in: .originals) }
        } catch {
            logger.warning("could not read a stored original", metadata: ["url": "\(url)", "error": "\(error)"])
            return nil
        }
    }

    /// One fetch, repeated after transient failures as the retry policy allows;
    /// each attempt streams into a sink of its own.
    private func fetch(_ request: DataRequest,
                       priority: PriorityFollower) async throws -> (ResponseHead, Original.Body, byteCount: Int) {
        let ticket = limiter.makeTicket()
        priority.follow(with: ticket)
        var attempt = 1
        while true {
            do {
                return try await limiter.run(priority: priority.current, ticket: ticket) {
                    let sink = OriginalSink(disk: disk, url: request.url)
                    let response = try await loader.load(request, into: sink) {
                        progress.emit(.fetching($0), for: request.url)
                    }
                    let (body, byteCount) = try sink.body()
                    return (response, body, byteCount)
                }
            } catch let error as DataLoadingError where error.isTransient {
                guard let delay = retryPolicy.delay(afterAttempt: attempt, retryAfter: error.retryAfter) else {
                    throw error
                }
                attempt += 1
                statistics.record { $0.retries += 1 }
                logger.warning("retrying", metadata: ["url": "\(request.url)", "attempt": "\(attempt)",
                                                      "delay": "\(delay)", "error": "\(error)"])
                progress.emit(.retrying(attempt: attempt, of: retryPolicy.maximumAttempts, after: delay,
                                        reason: "\(error)"), for: request.url)
                try await Task.sleep(for: delay)
            }
        }
    }
}

/// Where one download attempt's body goes: the original tier's temporary
/// file, or memory when there is no disk tier.
final class OriginalSink: BodySink {
    private enum Destination {
        case none
        case file(DiskCacheEntryWriter)
        case memory(MemoryBodySink)
    }

    private let disk: DiskCache?
    private let url: String
    private let destination = Mutex(Destination.none)

    init(disk: DiskCache?, url: String) {
        self.disk = disk
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
        if let disk {
            destination = .file(try disk.makeEntryWriter(forKey: url, in: .originals,
                                                         metadata: Self.metadata(of: url, response)))
        } else {
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
    func body() throws -> (OriginalFetcher.Original.Body, Int) {
        switch destination.withLock({ $0 }) {
        case let .file(writer): (.downloaded(writer), writer.payloadBytes)
        case let .memory(memory): (.memory(memory.bytes), memory.bytes.count)
        case .none: (.memory([]), 0)
        }
    }
}
