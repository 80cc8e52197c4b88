import NIOCore
import ThumbnailKit

/// Where a server's encoded thumbnails come from, in order: its memory of
/// encoded bytes (byte-budgeted); the pipeline's stored thumbnails (disk,
/// object store) sent as they are stored when their format is the one asked
/// for; then a render by the pipeline, in a slot of ``RenderAdmission``, and
/// one encode. Requests for one thumbnail at once share one lookup and one
/// render; a request that leaves (its client gone, its deadline passed)
/// cancels the work only when it was the last one waiting for it.
struct EncodedThumbnails: Sendable {
    let pipeline: ThumbnailPipeline
    let encoder: ThumbnailEncoder
    let memory: MemoryCache<ServedKey, ServedThumbnail>
    let admission: RenderAdmission
    let metrics: ServingMetrics
    private let lookups = Coalescer<ServedKey, ServedThumbnail>()

    init(pipeline: ThumbnailPipeline, memoryBudget: Int, admission: RenderAdmission, metrics: ServingMetrics) {
        self.pipeline = pipeline
        // The pipeline's own encoder: a render's bytes are then the bytes its disk tier stores.
        encoder = pipeline.configuration.encoder
        // One thumbnail may take a quarter of the budget, so a few large ones cannot flush it.
        memory = MemoryCache(costLimit: memoryBudget, maximumEntryFraction: 0.25)
        self.admission = admission
        self.metrics = metrics
    }

    /// The encoded thumbnail for `key`, and the tier that answered.
    /// - Throws: ``RenderAdmission/Overloaded``, `CancellationError`, or the
    ///   pipeline's ``ThumbnailError`` (an encoder's failure as it is).
    func thumbnail(for key: ServedKey) async throws -> ServedThumbnail {
        if let hit = inMemory(key) { return hit }
        return try await lookups.value(for: key) { [self] in try await find(key) }
    }

    /// The thumbnail for `key` if the memory tier has it.
    func inMemory(_ key: ServedKey) -> ServedThumbnail? {
        guard var hit = memory.value(forKey: key) else { return nil }
        hit.tier = .memory
        return hit
    }

    private func find(_ key: ServedKey) async throws -> ServedThumbnail {
        let stored = await pipeline.withStoredThumbnail(for: key.thumbnailKey, in: key.format) { facts, bytes in
            ServedThumbnail(bytes: ByteBuffer(bytes: bytes), format: facts.format,
                            lastModified: facts.originLastModified, source: facts.source,
                            tier: facts.tier == .disk ? .disk : .store)
        }
        let found: ServedThumbnail
        if let stored {
            found = stored
        } else {
            found = try await admission.withSlot { try await render(key) }
        }
        memory.insert(found, forKey: key, cost: found.cost)
        return found
    }

    private func render(_ key: ServedKey) async throws -> ServedThumbnail {
        let request = ThumbnailRequest(url: key.source, size: key.size)
        // The keeper writes JPEG or PNG; for WebP there is nothing to share.
        let (thumbnail, kept) = key.format == .webp
            ? (try await pipeline.thumbnail(for: request), nil) : try await pipeline.thumbnailAndKeptEncoding(for: request)
        metrics.renders.increment()
        let preferred = encoder.preferredFormat(for: thumbnail)
        let format = key.format ?? preferred
        // The keeper encoded the same bytes for the disk tier: one encode serves both.
        let bytes = if let kept, format == preferred {
            kept
        } else {
            try await BlockingWork.run { [encoder] in try encoder.encode(thumbnail, as: format) }
        }
        return ServedThumbnail(bytes: ByteBuffer(bytes: bytes), format: format,
                               lastModified: thumbnail.originLastModified, source: thumbnail.source, tier: .render)
    }
}
