/// Sends `http(s)://` URLs to one loader and everything else (`file://`,
/// plain paths) to another: one pipeline for a feed of web images and a feed
/// of local files alike.
public struct SchemeRoutingDataLoader: DataLoading {
    /// Loads `http://` and `https://` URLs.
    public let network: any DataLoading
    /// Loads the rest. Default: ``FileDataLoader``.
    public let local: any DataLoading

    /// A loader routing by scheme.
    /// - Parameters:
    ///   - network: Loads `http://` and `https://` URLs.
    ///   - local: Loads `file://` URLs and plain paths. Default: a ``FileDataLoader``.
    public init(network: any DataLoading, local: any DataLoading = FileDataLoader()) {
        self.network = network
        self.local = local
    }

    /// Whether `url` is an `http(s)://` URL (scheme compared without case).
    public static func isWebURL(_ url: String) -> Bool {
        let lowered = url.prefix(8).lowercased()
        return lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
    }

    public func load(_ request: DataRequest, into sink: any BodySink,
                     progress: @escaping @Sendable (TransferProgress) -> Void) async throws -> ResponseHead {
        try await (Self.isWebURL(request.url) ? network : local).load(request, into: sink, progress: progress)
    }
}
