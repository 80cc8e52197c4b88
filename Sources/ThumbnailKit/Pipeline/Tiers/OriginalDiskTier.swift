import Logging

/// The original tier: answers from a stored original, and is where a
/// download through the tiers below lands (streamed into a temporary file,
/// kept only once it has decoded). Revalidation sends the stored copy's
/// validators; a 304 answers with the stored copy.
struct OriginalDiskTier: OriginalProviding {
    let next: any OriginalProviding
    let disk: DiskOriginals
    let statistics: StatisticsCounter
    let logger: Logger

    func original(for request: OriginalRequest) async throws -> Original {
        let stored = request.cachePolicy == .reload ? nil : await disk.open(request.url)
        if let stored, request.cachePolicy == .useCache {
            statistics.record { $0.originalDiskHits += 1 }
            logger.debug("original from disk", metadata: ["url": "\(request.url)"])
            return Original(body: .stored(stored), metadata: stored.metadata)
        }
        var forwarded = request
        forwarded.landing = .disk(disk)
        if request.cachePolicy == .revalidate, let stored,
           stored.metadata.etag != nil || stored.metadata.lastModified != nil {
            forwarded.validators = .init(etag: stored.metadata.etag, lastModified: stored.metadata.lastModified)
        }
        var fetched = try await next.original(for: forwarded)
        if fetched.isNotModified, let stored {
            statistics.record { $0.notModified += 1 }
            logger.debug("original not modified", metadata: ["url": "\(request.url)"])
            return Original(body: .stored(stored), metadata: stored.metadata)
        }
        // After what the tiers below keep, so a download is committed only once they have.
        let below = fetched.keep
        if let storing = storing(fetched.body, of: request.url, metadata: fetched.metadata) {
            fetched.keep = {
                try await below?()
                try await storing()
            }
        }
        return fetched
    }

    /// How a fetched body is kept: its temporary file committed, or bytes a tier of the app's had in memory stored.
    private func storing(_ body: Original.Body, of url: String,
                         metadata: DiskCacheMetadata) -> (@Sendable () async throws -> Void)? {
        switch body {
        case .stored: nil
        case let .downloaded(writer): { try await BlockingWork.run { try writer.commit() } }
        case let .memory(bytes): { [disk] in try await disk.store(bytes, metadata: metadata, of: url) }
        }
    }
}
