import Synchronization

/// The writes of stored copies (an original, encoded thumbnails) that run
/// after the thumbnails reached their callers: whoever reports work as done
/// waits for the writes of its URL, and learns what they wrote.
final class StoredCopyWrites: Sendable {
    typealias Write = Task<KeptCopies, Never>

    private struct State {
        var pending: [String: [UInt64: Write]] = [:]
        /// For each watcher of a URL, the writes of it that it waits for.
        var watched: [String: [UInt64: [Write]]] = [:]
        var nextID: UInt64 = 0

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }
    }

    private let state = Mutex(State())

    /// Starts `write`, for copies of `url`, in a task of its own: it finishes
    /// even if every caller has left, and the process's exit waits for it
    /// (``WritesAtExit``).
    func start(for url: String, _ write: @escaping @Sendable () async -> KeptCopies) {
        WritesAtExit.begin()
        state.withLock { state in
            let id = state.makeID()
            // Started under the lock, so it is pending before it can finish and leave.
            let task = Task {
                let kept = await write()
                self.finished(url, id)
                WritesAtExit.end()
                return kept
            }
            state.pending[url, default: [:]][id] = task
            for watcher in state.watched[url, default: [:]].keys { state.watched[url]?[watcher]?.append(task) }
        }
    }

    /// Runs `body`, then waits for the writes of `url` pending when it began
    /// or started while it ran.
    /// - Returns: what `body` returned, and what the writes wrote together
    ///   (the first failure among them, if any).
    func watching<Result>(_ url: String,
                          during body: () async throws -> Result) async throws -> (Result, KeptCopies) {
        let id = state.withLock { state in
            let id = state.makeID()
            state.watched[url, default: [:]][id] = Array(state.pending[url, default: [:]].values)
            return id
        }
        let result: Result
        do {
            result = try await body()
        } catch {
            _ = stopWatching(url, id)
            throw error
        }
        var kept = KeptCopies()
        for write in stopWatching(url, id) {
            kept.add(await write.value)
        }
        return (result, kept)
    }

    /// Returns once the writes of `url` pending now have finished. A rendition
    /// of `url` that starts just after another ended waits here, and then finds
    /// the original the other downloaded committed on disk, instead of
    /// downloading it again.
    func settled(_ url: String) async {
        for write in state.withLock({ Array($0.pending[url, default: [:]].values) }) {
            _ = await write.value
        }
    }

    /// Returns once no write is pending.
    func waitForAll() async {
        while let write = state.withLock({ $0.pending.values.lazy.compactMap(\.values.first).first }) {
            _ = await write.value
        }
    }

    private func stopWatching(_ url: String, _ id: UInt64) -> [Write] {
        state.withLock { state in
            let writes = state.watched[url]?.removeValue(forKey: id) ?? []
            if state.watched[url]?.isEmpty == true { state.watched[url] = nil }
            return writes
        }
    }

    private func finished(_ url: String, _ id: UInt64) {
        state.withLock { state in
            state.pending[url]?[id] = nil
            if state.pending[url]?.isEmpty == true { state.pending[url] = nil }
        }
    }
}
