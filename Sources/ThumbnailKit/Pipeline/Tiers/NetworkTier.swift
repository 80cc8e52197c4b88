import Logging

/// The last original tier: one fetch through a ``DataLoading``, its body
/// landing where the request says.
struct NetworkTier: OriginalProviding {
    let loader: any DataLoading
    let statistics: StatisticsCounter
    let logger: Logger

    func original(for request: OriginalRequest) async throws -> Original {
        let sink = request.landing.makeSink(for: request.url)
        let response = try await loader.load(
            DataRequest(url: request.url, maximumBytes: request.maximumBytes, validators: request.validators,
                        accept: ImageFormat.acceptedMediaTypes),
            into: sink) { request.report(.fetching($0)) }
        let (body, byteCount) = sink.body()
        let metadata = OriginalSink.metadata(of: request.url, response)
        guard !response.notModified else {
            var unchanged = Original(body: body, metadata: metadata)
            unchanged.isNotModified = true
            return unchanged
        }
        statistics.record {
            $0.downloads += 1
            $0.bytesDownloaded += byteCount
        }
        logger.debug("fetched", metadata: ["url": "\(request.url)", "bytes": "\(byteCount)"])
        return Original(body: body, metadata: metadata)
    }
}
