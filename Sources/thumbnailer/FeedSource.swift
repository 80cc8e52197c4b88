import CommandLineSupport
import ThumbnailFeeds
import ThumbnailKit

/// Where a feed comes from, and how it is fetched and parsed; a failure of
/// either is the command's exit status 2.
struct FeedSource {
    /// An `http(s)://` URL, a `file://` URL or a path.
    let location: String
    let imageKeyPath: String?
    /// The largest feed document accepted, counted as its bytes arrive (from
    /// the web or a file), so a larger one is never held whole.
    let maximumBytes: Int

    func load(with loader: any DataLoading) async throws -> Feed {
        let bytes: [UInt8]
        do {
            bytes = try await loader.loadBytes(DataRequest(url: location, maximumBytes: maximumBytes))
        } catch is CancellationError {
            throw CancellationError()
        } catch DataLoadingError.tooLarge(_, _, let limit) {
            throw CommandFailure("cannot fetch the feed \(location): it is larger than the limit of "
                + "\(ByteCount(bytes: limit)) (\(limit) bytes); raise --max-feed-bytes to read it", exitCode: 2)
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
