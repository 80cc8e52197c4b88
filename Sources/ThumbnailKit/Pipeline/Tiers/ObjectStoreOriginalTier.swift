import Logging

/// The originals a fleet kept in the object store, read before the origin is
/// asked: streamed into the original tier's landing (a temporary file) and
/// checked against their checksum on the way. A store that cannot be read, or
/// a copy that does not match, is logged and the origin is asked instead.
struct ObjectStoreOriginalTier: OriginalProviding {
    let next: any OriginalProviding
    let originals: ObjectStoreOriginals
    let statistics: StatisticsCounter
    let logger: Logger

    func original(for request: OriginalRequest) async throws -> Original {
        guard request.cachePolicy == .useCache else { return try await next.original(for: request) }
        var landed: OriginalSink?
        do {
            let metadata = try await originals.load(request.url, maximumBytes: request.maximumBytes) { _ in
                let sink = request.landing.makeSink(for: request.url)
                landed = sink
                return sink
            }
            if let metadata, let landed {
                statistics.record { $0.objectStoreOriginalHits += 1 }
                logger.debug("original from the object store", metadata: ["url": "\(request.url)"])
                var original = Original(body: landed.body().0, metadata: metadata)
                original.isFromObjectStore = true
                return original
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            logger.warning("the object store's original was not used", metadata: ["url": "\(request.url)", "error": "\(error)"])
        }
        return try await next.original(for: request)
    }
}
