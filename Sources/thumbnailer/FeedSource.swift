import CommandLineSupport
import ThumbnailFeeds
import ThumbnailKit

/// Where a feed comes from, and how it is fetched and parsed; a failure of
/// either is the command's exit status 2.
///
/// The feed goes to a temporary file as it arrives (``SpoolFile``), and is
/// parsed from there a piece at a time: memory never holds the document.
struct FeedSource {
    /// An `http(s)://` URL, a `file://` URL or a path.
    let location: String
    let imageKeyPath: String?
    /// The largest feed document accepted, counted as its bytes arrive (from
    /// the web or a file), so a larger one is never read whole.
    let maximumBytes: Int

    /// The feed's rows for `browse` and `serve --feed`, written to disk item by item as it is parsed, and shown only once
    /// the whole feed has parsed (a malformed document is refused before any row shows).
    func rows(with loader: any DataLoading) async throws -> FeedRows {
        let document = try await fetch(with: loader)
        var spool = try FeedRowSpool()
        var spoolFailure: (any Error)?
        let outline = try parsing { () throws(FeedError) in
            try FeedParser(imageKeyPath: imageKeyPath).parse(
                FeedBytes(fileDescriptor: document.descriptor, count: document.count), source: location,
                onItem: { item in
                    guard spoolFailure == nil else { return }
                    do { try spool.add(item) } catch { spoolFailure = error }
                },
                onRefused: { _ in })
        }
        if let spoolFailure { throw spoolFailure }
        return try spool.finish(title: outline.title)
    }

    /// The images of the feed in `shard`, gathered item by item as it is parsed.
    func images(in shard: WarmShard, with loader: any DataLoading) async throws -> FeedImageList {
        let document = try await fetch(with: loader)
        var list = try FeedImageList(shard: shard)
        var spoolFailure: (any Error)?
        list.outline = try parsing { () throws(FeedError) in
            try FeedParser(imageKeyPath: imageKeyPath).parse(
                FeedBytes(fileDescriptor: document.descriptor, count: document.count), source: location,
                onItem: { item in
                    guard spoolFailure == nil else { return }
                    do { try list.add(item) } catch { spoolFailure = error }
                },
                onRefused: { list.refuse($0) })
        }
        if let spoolFailure { throw spoolFailure }
        return list
    }

    /// The feed's bytes, in a temporary file.
    private func fetch(with loader: any DataLoading) async throws -> SpoolFile {
        let document = try SpoolFile()
        do {
            _ = try await loader.load(DataRequest(url: location, maximumBytes: maximumBytes), into: document, progress: { _ in })
        } catch is CancellationError {
            throw CancellationError()
        } catch let failure as CommandFailure {
            throw failure
        } catch DataLoadingError.tooLarge(_, _, let limit) {
            throw CommandFailure("cannot fetch the feed \(location): it is larger than the limit of "
                + "\(ByteCount(bytes: limit)) (\(limit) bytes); raise --max-feed-bytes to read it", exitCode: 2)
        } catch {
            throw CommandFailure("cannot fetch the feed: \(error)", exitCode: 2)
        }
        return document
    }

    /// What `parse` returns; its error as the command's failure.
    private func parsing<Result>(_ parse: () throws(FeedError) -> Result) throws -> Result {
        do {
            return try parse()
        } catch {
            throw CommandFailure("cannot read the feed \(location): \(error)", exitCode: 2)
        }
    }
}
