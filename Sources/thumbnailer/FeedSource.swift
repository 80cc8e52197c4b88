import ThumbnailFeeds
import ThumbnailKit

/// Where a feed comes from, and how it is fetched and parsed; a failure of
/// either is the command's exit status 2.
struct FeedSource {
    /// An `http(s)://` URL, a `file://` URL or a path.
    let location: String
    let imageKeyPath: String?

    /// The largest feed document accepted.
    static let maximumBytes = 20_000_000

    func load(with loader: any DataLoading) async throws -> Feed {
        let bytes: [UInt8]
        do {
            bytes = try await loader.loadBytes(DataRequest(url: location, maximumBytes: Self.maximumBytes))
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw CommandFailure("cannot fetch the feed: \(error)", exitCode: 2)
        }
        do {
            return try FeedParser(imageKeyPath: imageKeyPath).parse(bytes, source: location)
        } catch {
            throw CommandFailure("cannot read the feed \(location): \(error)", exitCode: 2)
        }
    }
}
