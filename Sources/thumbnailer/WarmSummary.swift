import CommandLineSupport
import ThumbnailFeeds
import ThumbnailKit
import ThumbnailTerminal

/// What `warm` prints at the end: as text, or as one JSON object.
struct WarmSummary {
    let feedLocation: String
    /// The feed's images, and the slice of them this process warmed.
    let feed: FeedImageList
    private var shard: WarmShard { feed.shard }
    /// The object store, with `--store`: its location, and the objects this process wrote to it.
    let store: (location: String, objectsWritten: Int)?
    let sizes: Set<ThumbnailSize>
    let report: WarmReport
    let cache: DiskCache
    let elapsed: Duration
    let peakResidentBytes: Int
    /// The most images decoded at once (`--decoders` bounds it).
    let peakConcurrentDecodes: Int
    let interrupted: Bool

    init(feedLocation: String, feed: FeedImageList, store: (location: String, objectsWritten: Int)?, sizes: Set<ThumbnailSize>,
         report: WarmReport, cache: DiskCache,
         elapsed: Duration, peakResidentBytes: Int, peakConcurrentDecodes: Int, interrupted: Bool) {
        self.feedLocation = feedLocation
        self.feed = feed
        self.store = store
        self.sizes = sizes
        self.report = report
        self.cache = cache
        self.elapsed = elapsed
        self.peakResidentBytes = peakResidentBytes
        self.peakConcurrentDecodes = peakConcurrentDecodes
        self.interrupted = interrupted
    }

    /// Images that failed, and images the feed named but may not be fetched.
    var failed: Int { report.failed + feed.refusedCount }

    /// The first of ``failed`` (``WarmReport/keptFailures`` of each kind);
    /// each reason without the URL a loading error starts with, which the
    /// failure already names, and both cut to ``shownCharacters``.
    var failures: [(url: String, reason: String)] {
        let all = report.failures.map { ($0.url, Self.reason($0.reason, withoutPrefix: $0.url)) }
            + feed.refused.map { ($0.url, "refused: \($0.reason)") }
        return all.map { (Self.cut($0.0), Self.cut($0.1)) }
    }

    /// The most characters of a URL or reason shown: one from a feed may be
    /// kilobytes long, and a summary line is to be read.
    static let shownCharacters = 300

    /// `text`, cut to ``shownCharacters`` with “…” when longer.
    static func cut(_ text: String) -> String {
        text.count <= shownCharacters ? text : text.prefix(shownCharacters - 1) + "…"
    }

    /// Images this run cached and then evicted itself to make room for later
    /// ones: a rerun would download them again. Not counted with a store,
    /// which keeps what the disk lets go.
    var evictedImages: DiskCache.ImageEvictions {
        store == nil ? cache.imageEvictions : DiskCache.ImageEvictions()
    }

    /// Whether every image is cached: none failed, none was evicted by the run.
    var succeeded: Bool { failed == 0 && evictedImages.images == 0 }

    /// Whether running again may cache what this run did not: some image failed for a
    /// transient reason (``WarmReport/failedTransiently``), and the run did not evict images of
    /// its own (a disk limit too small for the feed, which a run again meets again). A
    /// scheduler retries on this.
    var worthRetrying: Bool { report.failedTransiently > 0 && evictedImages.images == 0 }

    /// Why the cache does not hold the feed, when the run evicted images of it.
    private var evictionLine: String? {
        let evicted = evictedImages
        guard evicted.images > 0 else { return nil }
        let cause = evicted.bytesNeeded > cache.sizeLimit
            ? "--disk-limit is \(ByteCount(bytes: cache.sizeLimit))"
            : "the file system ran out of room first"
        return "disk limit too small for this feed: \(evicted.images) images evicted during the run; "
            + "need about \(ByteCount(bytes: evicted.bytesNeeded)) (\(cause))"
    }

    private static func reason(_ reason: String, withoutPrefix url: String) -> String {
        reason.hasPrefix(url + ": ") ? String(reason.dropFirst(url.count + 2)) : reason
    }

    private var sizeList: [String] { sizes.map(\.description).sorted() }
    private var elapsedSeconds: Double { (elapsed.inSeconds * 1000).rounded() / 1000 }
    private var cacheBytes: Int? { try? cache.statistics().totalBytes }

    /// The summary as lines of text, each escaped (``TerminalText``): URLs,
    /// reasons and paths come from feeds and servers.
    var text: String {
        var lines = [
            "feed        \(Self.cut(feedLocation)) (\(feed.outline.format.rawValue), \(feed.items) items, \(feed.images) images)",
        ]
        if shard.count > 1 {
            lines.append("shard       \(shard): \(report.images + feed.refusedCount) of \(feed.images) images")
        }
        if let store {
            lines.append("store       \(store.location): \(store.objectsWritten) objects written, "
                         + "\(report.copiedToObjectStore) images copied from the disk cache")
        }
        lines += [
            "fetched     \(report.fetched) images, \(ByteCount(bytes: report.bytesDownloaded))",
            "cached      \(report.alreadyCached) already"
                + (report.notModified > 0 ? ", \(report.notModified) unchanged (304)" : "")
                + (report.madeFromStoredOriginal > 0 ? ", \(report.madeFromStoredOriginal) made from stored originals" : ""),
            "thumbnails  \(report.thumbnailsWritten) written (\(sizeList.joined(separator: ", ")))",
            "failed      \(failed)"
                + (report.failedTransiently > 0 ? ", \(report.failedTransiently) of them may succeed on a later run" : ""),
        ]
        let listed = failures
        lines += listed.map { "  \($0.url): \($0.reason)" }
        if failed > listed.count { lines.append("  … and \(failed - listed.count) more") }
        if let evictionLine { lines.append(evictionLine) }
        if interrupted { lines.append("interrupted \(report.unfinished) images left for the next run") }
        let evictions = cache.evictions
        lines.append("disk cache  \(cache.directory): \(cacheBytes.map { ByteCount(bytes: $0).description } ?? "?") of "
                     + "\(ByteCount(bytes: cache.sizeLimit)), evicted \(evictions.entries) entries (\(ByteCount(bytes: evictions.bytes)))")
        lines.append("elapsed     \(elapsedSeconds) s, peak RSS \(ByteCount(bytes: peakResidentBytes))")
        return lines.map(TerminalText.escaped).joined(separator: "\n")
    }

    var json: String {
        var line = JSONLine()
        line.add("feed", Self.cut(feedLocation))
        line.add("format", feed.outline.format.rawValue)
        line.add("items", feed.items)
        line.add("images", report.images + feed.refusedCount)
        line.add("shard", shard.description)
        line.add("shardIndex", shard.index)
        line.add("shardCount", shard.count)
        line.add("feedImages", feed.images)
        line.add("store", store?.location)
        line.add("storeObjectsWritten", store?.objectsWritten)
        line.add("copiedToStore", report.copiedToObjectStore)
        line.add("fetched", report.fetched)
        line.add("alreadyCached", report.alreadyCached)
        line.add("notModified", report.notModified)
        line.add("madeFromStoredOriginals", report.madeFromStoredOriginal)
        line.add("failed", failed)
        line.add("failedTransiently", report.failedTransiently)
        line.add("failures", objects: failures.map { failure in
            var object = JSONLine()
            object.add("url", failure.url)
            object.add("reason", failure.reason)
            return object
        })
        line.add("unfinished", report.unfinished)
        line.add("interrupted", interrupted)
        line.add("bytesDownloaded", report.bytesDownloaded)
        line.add("thumbnailsWritten", report.thumbnailsWritten)
        line.add("sizes", sizeList)
        line.add("cacheDirectory", cache.directory)
        line.add("cacheBytes", cacheBytes)
        line.add("cacheLimit", cache.sizeLimit)
        line.add("evictedEntries", cache.evictions.entries)
        line.add("evictedBytes", cache.evictions.bytes)
        line.add("evictedImages", evictedImages.images)
        line.add("diskBytesNeeded", evictedImages.bytesNeeded)
        line.add("diskLimitTooSmall", evictionLine)
        line.add("elapsedSeconds", elapsedSeconds)
        line.add("peakRSSBytes", peakResidentBytes)
        line.add("peakConcurrentDecodes", peakConcurrentDecodes)
        return line.text
    }
}
