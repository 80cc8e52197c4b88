import Synchronization

/// The sizes of each URL that callers are waiting for right now, so that one
/// decode of an original can make all of them.
final class RequestedSizes: Sendable {
    private let counts = Mutex<[String: [ThumbnailSize: Int]]>([:])

    /// Counts each of `sizes` of `url` as wanted until `body` returns.
    func wanting<Result>(_ sizes: Set<ThumbnailSize>, of url: String,
                         during body: () async throws -> Result) async rethrows -> Result {
        counts.withLock { counts in
            for size in sizes { counts[url, default: [:]][size, default: 0] += 1 }
        }
        defer {
            counts.withLock { counts in
                for size in sizes {
                    counts[url]?[size]? -= 1
                    if counts[url]?[size] == 0 { counts[url]?[size] = nil }
                }
                if counts[url]?.isEmpty == true { counts[url] = nil }
            }
        }
        return try await body()
    }

    /// The sizes of `url` wanted now.
    func sizes(of url: String) -> Set<ThumbnailSize> {
        counts.withLock { Set(($0[url] ?? [:]).keys) }
    }
}
