import Synchronization

/// The entries this process has open, being written or read: eviction to make
/// room on a full disk passes over them. Removing an open file frees nothing
/// until it is closed, and an open entry is the work in progress (a
/// download's original, whose thumbnails are being stored now).
final class EntriesInUse: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    /// Marks `id` in use until the returned token is released.
    func use(_ id: String) -> Use {
        counts.withLock { $0[id, default: 0] += 1 }
        return Use(id: id, registry: self)
    }

    /// The ids in use now.
    var ids: Set<String> { counts.withLock { Set($0.keys) } }

    private func release(_ id: String) {
        counts.withLock { counts in
            counts[id, default: 1] -= 1
            if counts[id] == 0 { counts[id] = nil }
        }
    }

    /// One use of an entry, ending when this is released.
    final class Use: Sendable {
        private let id: String
        private let registry: EntriesInUse

        fileprivate init(id: String, registry: EntriesInUse) {
            self.id = id
            self.registry = registry
        }

        deinit { registry.release(id) }
    }
}
