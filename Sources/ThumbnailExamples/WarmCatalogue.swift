import ThumbnailHTTP

/// Fills the disk tiers with two sizes of every image of a catalogue before
/// anyone scrolls it; a second run downloads nothing.
func warmCatalogue(_ urls: [String]) async throws -> WarmReport {
    let warmer = CacheWarmer(pipeline: try ThumbnailPipeline.shared, sizes: [.fit(256), .fill(width: 128, height: 128)])
    let report = await warmer.warm(urls) { progress in
        print("\(progress.done) of \(progress.total), \(progress.failures) failed")
    }
    print(report.fetched, report.alreadyCached, report.failed, report.failedTransiently)
    return report
}
