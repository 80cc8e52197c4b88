/// The summary of warming a list of images.
public struct WarmReport: Sendable {
    /// Distinct images asked for.
    public var images = 0
    /// Images downloaded in this run.
    public var fetched = 0
    /// Images whose copies were all stored already (on disk, or in the object store when there is one).
    public var alreadyCached = 0
    /// Images revalidated and found unchanged.
    public var notModified = 0
    /// Images whose thumbnails were made from a stored original.
    public var madeFromStoredOriginal = 0
    /// Images whose thumbnails were on disk and were copied to the object store as they are.
    public var copiedToObjectStore = 0
    /// Images that failed.
    public var failed = 0
    /// Of ``failed``, those that failed for a reason a later run may not meet
    /// (``ThumbnailError/isTransient``: the origin or the store unreachable or
    /// answering 5xx, 429, 408; a timeout): a scheduler that retries a run retries for these.
    public var failedTransiently = 0
    /// The first ``keptFailures`` images that failed, with the reason, in the
    /// order they failed: a run of millions of images keeps a summary's worth.
    public var failures: [(url: String, reason: String)] = []
    /// Images not finished because the run was cancelled (in flight or not started).
    public var unfinished = 0
    /// Body bytes downloaded.
    public var bytesDownloaded = 0
    /// Encoded thumbnails written: to the disk tier, or to the object store when there is one.
    public var thumbnailsWritten = 0

    /// How many failures ``failures`` lists.
    public static let keptFailures = 100

    package init() {}

    /// Images done, whatever their outcome (not cancelled ones).
    public var finished: Int { fetched + alreadyCached + notModified + madeFromStoredOriginal + copiedToObjectStore + failed }

    mutating func record(_ outcome: WarmOutcome, for url: String) {
        switch outcome {
        case .alreadyCached: alreadyCached += 1
        case let .fetched(bytes):
            fetched += 1
            bytesDownloaded += bytes
        case .madeFromStoredOriginal: madeFromStoredOriginal += 1
        case .notModified: notModified += 1
        case .copiedToObjectStore: copiedToObjectStore += 1
        case let .failed(reason, transient):
            failed += 1
            if transient { failedTransiently += 1 }
            if failures.count < Self.keptFailures { failures.append((url, reason)) }
        case .cancelled: break  // counted as unfinished when the report is made
        }
    }
}
