import Synchronization

/// The writes of stored copies (an original, encoded thumbnails) that run
/// after the thumbnails reached their callers: whoever reports work as done
/// waits for the writes of its URL, and learns why one failed.
final class StoredCopyWrites: Sendable {
    /// A write's outcome: why what it stored is not on disk, or `nil`.
    typealias Write = Task<(any Error)?, Never>

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
    func start(for url: String, _ write: @escaping @Sendable () async -> (any Error)?) {
        WritesAtExit.begin()
        state.withLock { state in
            let id = state.makeID()
            // Started under the lock, so it is pending before it can finish and leave.
            let task = Task {
                let failure = await write()
                self.finished(url, id)
                WritesAtExit.end()
                return failure
            }
            state.pending[url, default: [:]][id] = task
            for watcher in state.watched[url, default: [:]].keys { state.watched[url]?[watcher]?.append(task) }
        }
    }

    /// Runs `body`, then waits for the writes of `url` pending when it began
    /// or started while it ran.
    /// - Returns: what `body` returned, and the first write's failure, if any.
    func watching<Result>(_ url: String,
                          during body: () async throws -> Result) async throws -> (Result, (any Error)?) {
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
        var failure: (any Error)?
        for write in stopWatching(url, id) {
            if let error = await write.value { failure = failure ?? error }
        }
        return (result, failure)
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
