import Logging

/// The tier that decodes: brings the original from the original tiers and
/// decodes it once for every size its callers want by the time a decode slot
/// is free. On revalidation an unchanged original is not decoded again: the
/// thumbnail disk tier answers with what it stored (``OriginalUnchanged``).
struct RenderingTier: RenditionProviding {
    let originals: any OriginalProviding
    let renderer: ThumbnailRenderer
    let maximumDownloadBytes: Int
    let logger: Logger

    func rendition(of request: RenditionRequest) async throws -> Rendition {
        let work = request.work
        let priority = PriorityFollower(work.priority)
        work.onPriorityRaised { priority.raise(to: $0) }
        let original = try await originals.original(for: OriginalRequest(
            url: request.url, cachePolicy: request.cachePolicy, maximumBytes: maximumDownloadBytes, priority: priority,
            report: { work.report($0) }))
        if request.cachePolicy == .revalidate, !original.isNew { throw OriginalUnchanged() }
        work.report(.decoding)
        var made = try await renderer.render(original.body, wantedSizes: { work.wantedSizes }, priority: priority)
        if let lastModified = original.metadata.lastModified {
            for size in made.keys { made[size]?.originLastModified = lastModified }
        }
        logger.debug("decoded", metadata: ["url": "\(request.url)", "sizes": "\(made.keys.map(\.description))"])
        return Rendition(thumbnails: made, original: original)
    }
}
