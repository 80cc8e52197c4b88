import ThumbnailKit

/// Stands in for ``HTTPDataLoader`` when libcurl could not start: the web
/// pipeline still loads files, and each web request fails saying why, where
/// the app can show it, instead of the process stopping when it starts.
struct UnavailableDataLoader: DataLoading {
    /// Why there is no transport, as libcurl said it.
    let reason: String

    func load(_ request: DataRequest, into sink: any BodySink,
              progress: @escaping @Sendable (TransferProgress) -> Void) async throws -> ResponseHead {
        throw DataLoadingError.network(request.url, reason: reason)
    }
}
