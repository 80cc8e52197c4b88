import Logging

/// Brings the bytes of an original: from the original disk tier, or through
/// the data loader under the download limit, retrying transient failures,
/// revalidating a stored copy when asked.
struct OriginalFetcher: Sendable {
    /// An original's bytes and where they came from.
    struct Original: Sendable {
        var bytes: [UInt8]
        var metadata: DiskCacheMetadata
        /// Fetched now and not stored yet: store it once it has decoded.
        var isNew: Bool
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
        let stored = policy == .reload ? nil : await readStored(url)
        if let stored, policy == .useCache {
            statistics.record { $0.originalDiskHits += 1 }
            logger.debug("original from disk", metadata: ["url": "\(url)"])
            return Original(bytes: stored.bytes, metadata: stored.metadata, isNew: false)
        }
        var request = DataRequest(url: url, maximumBytes: maximumBytes)
        if policy == .revalidate, let stored, stored.metadata.etag != nil || stored.metadata.lastModified != nil {
            request.validators = .init(etag: stored.metadata.etag, lastModified: stored.metadata.lastModified)
        }
        let loaded = try await fetch(request, priority: priority)
        if loaded.notModified, let stored {
            statistics.record { $0.notModified += 1 }
            logger.debug("original not modified", metadata: ["url": "\(url)"])
            return Original(bytes: stored.bytes, metadata: stored.metadata, isNew: false)
        }
        statistics.record {
            $0.downloads += 1
            $0.bytesDownloaded += loaded.bytes.count
        }
        logger.debug("fetched", metadata: ["url": "\(url)", "bytes": "\(loaded.bytes.count)"])
        let metadata = DiskCacheMetadata(url: url, etag: loaded.etag, lastModified: loaded.lastModified,
                                         contentType: loaded.contentType)
        return Original(bytes: loaded.bytes, metadata: metadata, isNew: true)
    }

    /// Stores a new original, atomically; a disk failure is logged, not thrown.
    func store(_ original: Original, of url: String) async {
        guard original.isNew, let disk else { return }
        do {
            try await BlockingWork.run {
                try disk.store(original.bytes, forKey: url, in: .originals, metadata: original.metadata)
            }
        } catch {
            logger.warning("could not store an original on disk", metadata: ["url": "\(url)", "error": "\(error)"])
        }
    }

    private func readStored(_ url: String) async -> DiskCacheEntry? {
        guard let disk else { return nil }
        do {
            return try await BlockingWork.run { try disk.entry(forKey: url, in: .originals) }
        } catch {
            logger.warning("could not read a stored original", metadata: ["url": "\(url)", "error": "\(error)"])
            return nil
        }
    }

    /// One fetch, repeated after transient failures as the retry policy allows.
    private func fetch(_ request: DataRequest, priority: PriorityFollower) async throws -> LoadedData {
        let ticket = limiter.makeTicket()
        priority.follow(with: ticket)
        var attempt = 1
        while true {
            do {
                return try await limiter.run(priority: priority.current, ticket: ticket) {
                    try await loader.load(request) { progress.emit(.fetching($0), for: request.url) }
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
