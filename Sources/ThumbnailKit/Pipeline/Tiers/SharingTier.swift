import Synchronization

/// Where requests for one original meet: every size of a URL wanted at once
/// comes from one rendition, which the callers share (``Coalescer``). Each
/// caller adds its size, its progress listener and its priority to the shared
/// work (``SharedWork``) while it waits, and leaves on cancellation; the work
/// stops when the last caller has left.
struct SharingTier: ThumbnailProviding {
    /// Shared work is keyed by the original and by which stored copies may answer.
    struct Key: Hashable, Sendable {
        let url: String
        let policy: CachePolicy
    }

    let next: any RenditionProviding
    /// The stored copies still being written: a rendition waits for its URL's, so that the original an
    /// earlier rendition downloaded is on disk before this one looks for it.
    let writes: StoredCopyWrites
    let renditions = Coalescer<Key, [ThumbnailSize: Thumbnail]>()

    func cachedThumbnail(for request: ThumbnailRequest) -> Thumbnail? { nil }

    func thumbnail(for request: ThumbnailRequest,
                   progress: (@Sendable (ThumbnailProgress) -> Void)?) async throws -> Thumbnail {
        let key = Key(url: request.url, policy: request.cachePolicy)
        let together = SizesAskedTogether.current.flatMap { $0.url == request.url ? $0 : nil }
        let caller = SharedWork.Caller(sizes: [request.size], together: together, listener: progress)
        // A rendition that read the wanted sizes before this caller joined
        // lacks its size; the next one starts after it joined, so this loop
        // runs at most twice.
        while true {
            if let made = together?.take(request.size) { return made }
            let made = try await renditions.value(for: key, priority: request.priority, as: caller) { [next, writes] work in
                // Every size wanted was made by a rendition that ended as this one began.
                if work.wantedSizes.isEmpty { return [:] }
                await writes.settled(key.url)
                let made = try await next.rendition(of: RenditionRequest(url: key.url, cachePolicy: key.policy, work: work))
                work.deposit(made.thumbnails)
                return made.thumbnails
            }
            if let thumbnail = made[request.size] { return thumbnail }
        }
    }

    /// Callers waiting now for the rendition of `url` under `policy`.
    func callerCount(for url: String, policy: CachePolicy) -> Int {
        renditions.callerCount(for: Key(url: url, policy: policy))
    }
}

/// The sizes of one URL a caller asks for at once
/// (``ThumbnailPipeline/thumbnails(of:sizes:priority:cachePolicy:progress:)``):
/// the first rendition any of them reaches makes every one still pending,
/// and a size whose request reaches the sharing tier after that rendition
/// ended (its look at a store was slower) is handed what it made
/// (``SharedWork/deposit(_:)``), rather than starting another.
final class SizesAskedTogether: Sendable {
    /// The sizes asked together in the calling task, if any.
    @TaskLocal static var current: SizesAskedTogether?

    let url: String
    private let state: Mutex<(pending: Set<ThumbnailSize>, made: [ThumbnailSize: Thumbnail])>

    init(url: String, sizes: Set<ThumbnailSize>) {
        self.url = url
        state = Mutex((sizes, [:]))
    }

    /// The sizes neither answered yet nor made.
    var pending: Set<ThumbnailSize> { state.withLock { $0.pending } }

    /// `size` was answered (by any tier): no rendition need make it.
    func answered(_ size: ThumbnailSize) {
        state.withLock { _ = $0.pending.remove(size) }
    }

    /// Keeps what a rendition made for the sizes not answered yet.
    func deposit(_ made: [ThumbnailSize: Thumbnail]) {
        state.withLock { state in
            for (size, thumbnail) in made where state.pending.remove(size) != nil { state.made[size] = thumbnail }
        }
    }

    /// What a rendition made for `size`, handed over once.
    func take(_ size: ThumbnailSize) -> Thumbnail? {
        state.withLock { $0.made.removeValue(forKey: size) }
    }
}
